// The AVX2 instantiation of the cuboid kernels (compiled with SEXTANT_AVX2_FLAGS).
#include "cpu/skycube/cuboid_kernels_impl.hpp"

namespace sextant::cpu::detail {
template CuboidKernels cuboid_kernels<Avx2Isa>() noexcept;
}  // namespace sextant::cpu::detail

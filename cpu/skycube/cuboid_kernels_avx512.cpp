// The AVX-512 instantiation of the cuboid kernels (compiled with SEXTANT_AVX512_FLAGS; run only
// where cpu::allowed<Avx512Isa>(), see cpu/simd/isa.hpp).
#include "cpu/skycube/cuboid_kernels_impl.hpp"

namespace sextant::cpu::detail {
template CuboidKernels cuboid_kernels<Avx512Isa>() noexcept;
}  // namespace sextant::cpu::detail

// The baseline x86-64 instantiation of the cuboid kernels (no AVX2 anywhere in this file).
#include "cpu/skycube/cuboid_kernels_impl.hpp"

namespace sextant::cpu::detail {
template CuboidKernels cuboid_kernels<ScalarIsa>() noexcept;
}  // namespace sextant::cpu::detail

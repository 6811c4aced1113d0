// The AVX2 instantiation of the MDMC CPU kernel (built with SEXTANT_AVX2_FLAGS; run only where
// cpu::allowed<Avx2Isa>(), see cpu/simd/isa.hpp).
#include "cpu/skycube/mdmc_cpu_kernel.hpp"

namespace sextant::skycube::detail {

template <>
void mdmc_process<cpu::Avx2Isa>(const MdmcTasks<MdmcShared>& tasks, const MdmcCpuOptions& options,
                                MdmcScratch& scratch, HashCubePart& out) {
  MdmcKernel<cpu::Avx2Isa>::process(tasks, options, scratch, out);
}

}  // namespace sextant::skycube::detail

// The AVX2 instantiation of the MDMC CPU kernel (built with SEXTANT_AVX2_FLAGS; called only when
// the CPU has AVX2, see cpu/simd/isa.hpp).
#include "cpu/skycube/mdmc_cpu_kernel.hpp"

namespace sextant::skycube::detail {

void mdmc_process_avx2(const MdmcTasks<MdmcShared>& tasks, const MdmcCpuOptions& options,
                       MdmcScratch& scratch, HashCubePart& out) {
#if defined(__AVX2__)
  MdmcKernel<cpu::Avx2Isa>::process(tasks, options, scratch, out);
#else  // a compiler without AVX2 flags: the dispatcher never gets here on such a build's targets
  MdmcKernel<cpu::ScalarIsa>::process(tasks, options, scratch, out);
#endif
}

}  // namespace sextant::skycube::detail

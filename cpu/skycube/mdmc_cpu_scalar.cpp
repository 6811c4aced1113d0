// The scalar instantiation of the MDMC CPU kernel (built without SIMD flags).
#include "cpu/skycube/mdmc_cpu_kernel.hpp"

namespace sextant::skycube::detail {

template <>
void mdmc_process<cpu::ScalarIsa>(const MdmcTasks<MdmcShared>& tasks, const MdmcCpuOptions& options,
                                  MdmcScratch& scratch, HashCubePart& out) {
  MdmcKernel<cpu::ScalarIsa>::process(tasks, options, scratch, out);
}

}  // namespace sextant::skycube::detail

// The AVX-512 instantiation of the MDMC CPU kernel (built with SEXTANT_AVX512_FLAGS; run only
// where cpu::allowed<Avx512Isa>(), see cpu/simd/isa.hpp).
#include "cpu/skycube/mdmc_cpu_kernel.hpp"

namespace sextant::skycube::detail {

template <>
void mdmc_process<cpu::Avx512Isa>(const MdmcTasks<MdmcShared>& tasks, const MdmcCpuOptions& options,
                                  MdmcScratch& scratch, HashCubePart& out) {
  MdmcKernel<cpu::Avx512Isa>::process(tasks, options, scratch, out);
}

}  // namespace sextant::skycube::detail

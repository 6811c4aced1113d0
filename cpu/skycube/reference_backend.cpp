// The reference skycube for api/ (api/backends.hpp), in every build.
#include "api/backends.hpp"
#include "core/stopwatch.hpp"
#include "cpu/skycube/extended_skyline_cpu.hpp"
#include "cpu/skycube/reference_skycube.hpp"

namespace sextant::backends {

skycube::SkycubeResult reference_skycube(const Dataset& data, int max_level, int threads) {
  skycube::SkycubeResult result;
  Stopwatch sw;
  // Only for the summary: the reference itself does not use the extended skyline.
  result.extended_skyline_size = cpu::ExtendedSkylineCpu{threads}.extended_skyline(data).size();
  result.phases.add("extended skyline", sw.seconds());
  sw.restart();
  result.cube = skycube::reference_skycube(data, max_level);
  result.phases.add("reference skycube", sw.seconds());
  result.template_name = "reference";
  return result;
}

}  // namespace sextant::backends

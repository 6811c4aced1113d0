// The four applications on the CPU's cores through the front door.
#include "pipeline/pipeline_apps_conformance.hpp"

namespace sextant::pipeline::testing {
INSTANTIATE_TEST_SUITE_P(Cpu, PipelineApps, ::testing::Values("cpu"));
}  // namespace sextant::pipeline::testing

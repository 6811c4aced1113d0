// The four applications on a GPU and on every device at once, through the front door. Skips
// without CUDA or without a GPU.
#include "pipeline/pipeline_apps_conformance.hpp"

namespace sextant::pipeline::testing {
INSTANTIATE_TEST_SUITE_P(Gpu, PipelineApps, ::testing::Values("gpu0", "all"));
}  // namespace sextant::pipeline::testing

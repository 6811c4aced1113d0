// StreamWindow::advance_watermark on a GPU: the CPU's test body (stream_watermark_conformance.hpp).
#include <gtest/gtest.h>

#include <string>

#include "api/stream_window.hpp"
#include "core/error.hpp"
#include "gpu/gpu_test_support.hpp"
#include "support/stream_watermark_conformance.hpp"

namespace sextant::window {
namespace {

TEST(StreamWindowApiGpu, HeartbeatsFireWindows) {
  SEXTANT_REQUIRE_GPUS(1);
  testing::expect_heartbeats_fire_windows({.device = {DeviceKind::gpu, 0}});
}

TEST(StreamWindowApiGpu, HeartbeatsEqualTupleWatermarks) {
  SEXTANT_REQUIRE_GPUS(1);
  testing::expect_heartbeats_equal_tuple_watermarks({.device = {DeviceKind::gpu, 0}});
}

// The GPU runs its own B-PAT: the CPU's scan stage is refused by name, the others run.
TEST(StreamWindowApiGpu, WindowStageScanIsRefused) {
  SEXTANT_REQUIRE_GPUS(1);
  StreamWindowOptions options;
  options.specs = {{WindowType::time, 8, 1}};
  for (const WindowStageKind stage : {WindowStageKind::scan, WindowStageKind::dense}) {
    options.window_stage = stage;
    try {
      StreamWindow op(ValueType::int64, StreamAggregateKind::sum, options, {.device = {DeviceKind::gpu, 0}});
      ADD_FAILURE() << to_string(stage) << " accepted on the GPU";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::unsupported);
      EXPECT_NE(std::string(e.what()).find("window stage " + std::string(to_string(stage))),
                std::string::npos)
          << e.what();
    }
  }
  for (const WindowStageKind stage : {WindowStageKind::automatic, WindowStageKind::bpat}) {
    options.window_stage = stage;
    StreamWindow op(ValueType::int64, StreamAggregateKind::sum, options, {.device = {DeviceKind::gpu, 0}});
    EXPECT_NE(op.describe().find("gpu-bpat"), std::string::npos) << op.describe();
  }
}

}  // namespace
}  // namespace sextant::window

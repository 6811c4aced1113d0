// StreamWindow::advance_watermark on a GPU: the CPU's test body (stream_watermark_conformance.hpp).
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace sextant::window

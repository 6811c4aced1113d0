// The skyline front door on GPUs (api/skyline.hpp): the same conformance body as the CPU's
// (tests/support/skyline_conformance.hpp), on one GPU, and on every device at once (ranges on the
// CPU's cores and the GPUs, then the merge).
#include <gtest/gtest.h>

#include "api/skyline.hpp"
#include "gpu_test_support.hpp"
#include "support/skyline_conformance.hpp"
#include "support/window_skyline.hpp"

namespace sextant {
namespace {

SkylineOptions on(const char* devices) {
  SkylineOptions o;
  o.devices.devices = parse_devices("devices", devices);
  return o;
}

TEST(SkylineGpu, OneGpuConforms) {
  SEXTANT_REQUIRE_GPUS(1);
  testing::expect_small_skylines_conform(on("gpu0"));
  testing::expect_large_skylines_conform(on("gpu0"));
}

TEST(SkylineGpu, EveryDeviceConforms) {
  SEXTANT_REQUIRE_GPUS(1);
  const SkylineOptions all = on("cpu,gpu0");
  testing::expect_small_skylines_conform(all);
  testing::expect_large_skylines_conform(all);
  const SkylineResult r = skyline(testing::random_dataset(200000, 6, 0, 5), all);
  ASSERT_NE(r.statistics, nullptr);
  EXPECT_EQ(r.ids, testing::window_skyline(testing::random_dataset(200000, 6, 0, 5), full_mask(6)));
}

TEST(SkylineGpu, TwoGpusConform) {
  SEXTANT_REQUIRE_GPUS(2);
  testing::expect_large_skylines_conform(on("gpu0,gpu1"));
}

}  // namespace
}  // namespace sextant

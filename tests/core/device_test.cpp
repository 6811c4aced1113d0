#include "core/device.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace sextant {
namespace {

TEST(Devices, ParsesLists) {
  const auto all = parse_devices("--devices", "all");
  EXPECT_TRUE(all.all);
  EXPECT_TRUE(all.wants_gpu());
  const auto mixed = parse_devices("--devices", "cpu,gpu1,numa0");
  ASSERT_EQ(mixed.devices.size(), 3u);
  EXPECT_EQ(mixed.devices[1], (DeviceId{DeviceKind::gpu, 1}));
  EXPECT_EQ(to_string(mixed.devices[2]), "numa0");
  EXPECT_TRUE(mixed.wants_cpu());
  EXPECT_FALSE(parse_devices("--devices", "cpu").wants_gpu());
}

TEST(Devices, RejectsUnknownAndDuplicates) {
  for (const char* bad : {"", "gpu", "gpux", "tpu0", "gpu0,gpu0", "gpu-1", "cpu,"}) {
    EXPECT_THROW(parse_devices("--devices", bad), Error) << bad;
  }
}

}  // namespace
}  // namespace sextant

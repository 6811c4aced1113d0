#include "core/device.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

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

std::string message_of(DeviceId (*parse)(std::string_view), std::string_view text) {
  try {
    (void)parse(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_argument) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "accepted '" << text << "'";
  return {};
}

TEST(Devices, OneDeviceInTheSameGrammar) {
  EXPECT_EQ(parse_device("--device", "cpu"), (DeviceId{DeviceKind::cpu, -1}));
  EXPECT_EQ(parse_device("--device", "numa1"), (DeviceId{DeviceKind::cpu, 1}));
  EXPECT_EQ(parse_device("--device", "gpu2"), (DeviceId{DeviceKind::gpu, 2}));
  const auto one = [](std::string_view text) { return parse_device("--device", text); };
  for (const char* bad : {"all", "cpu,gpu0", "tpu0", "numa", ""}) {
    const std::string message = message_of(one, bad);
    EXPECT_NE(message.find("--device"), std::string::npos) << message;
    EXPECT_NE(message.find("numaN"), std::string::npos) << message;  // lists the valid forms
  }
  EXPECT_NE(message_of(one, "all").find("name exactly one device"), std::string::npos);
  EXPECT_NE(message_of(one, "tpu0").find("unknown device 'tpu0'"), std::string::npos);
}

// Every command that runs on all cores or one GPU refuses a NUMA node the same way.
TEST(Devices, CpuOrGpuRefusesANumaNodeNamingTheNodes) {
  const auto two_nodes = [](std::string_view text) {
    return parse_cpu_or_gpu(
        "--device", text, [] { return std::size_t{2}; }, "count windows");
  };
  EXPECT_EQ(two_nodes("cpu"), (DeviceId{DeviceKind::cpu, -1}));
  EXPECT_EQ(two_nodes("gpu1"), (DeviceId{DeviceKind::gpu, 1}));
  const std::string existing = message_of(two_nodes, "numa1");
  EXPECT_NE(existing.find("the count windows do not run on a single NUMA node"), std::string::npos)
      << existing;
  EXPECT_NE(existing.find("numa0 .. numa1"), std::string::npos) << existing;
  const std::string missing = message_of(two_nodes, "numa2");
  EXPECT_NE(missing.find("no such NUMA node on this machine"), std::string::npos) << missing;
  EXPECT_NE(missing.find("numa0 .. numa1"), std::string::npos) << missing;
  EXPECT_NE(message_of(two_nodes, "all").find("name exactly one device"), std::string::npos);
  // The node count is asked for only when a NUMA node is named (finding it out may be slow).
  const auto never = [] {
    ADD_FAILURE() << "asked for the NUMA nodes";
    return std::size_t{0};
  };
  EXPECT_EQ(parse_cpu_or_gpu("--device", "gpu0", never, "stream windows"), (DeviceId{DeviceKind::gpu, 0}));
  EXPECT_NE(message_of(two_nodes, "gpu0,gpu1").find("name exactly one device"), std::string::npos);
}

}  // namespace
}  // namespace sextant

// Device names as users write them: "cpu", "gpu0", "numa1", "all".
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sextant {

enum class DeviceKind { cpu, gpu };

struct DeviceId {
  DeviceKind kind = DeviceKind::cpu;
  int index = -1;  // gpu ordinal or NUMA node; -1 = every core of the machine ("cpu")

  friend bool operator==(const DeviceId&, const DeviceId&) = default;
};

std::string to_string(DeviceId id);
std::string_view to_string(DeviceKind kind) noexcept;

// A parsed --devices list. `all` means every CPU core and every GPU found at run time.
struct DeviceSelection {
  bool all = false;
  std::vector<DeviceId> devices;

  bool wants_gpu() const noexcept;
  bool wants_cpu() const noexcept;
};

// Parses "all", "cpu", "gpu0,gpu1", "numa0,gpu1"; throws Error naming `parameter`.
DeviceSelection parse_devices(const char* parameter, std::string_view text);

}  // namespace sextant

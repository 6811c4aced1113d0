// Device names as users write them: "cpu", "gpu0", "numa1", "all".
#pragma once

#include <cstddef>
#include <functional>
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

  bool wants_gpu() const noexcept;  // all, or some gpuN
  bool wants_cpu() const noexcept;
  bool names_gpu() const noexcept;  // some gpuN, named explicitly
};

// The one device grammar: "all", or a comma-separated list of "cpu" (every core), "numaN" (the
// cores of NUMA node N) and "gpuN". Throws Error::argument naming `parameter`, the bad item and
// the valid forms.
DeviceSelection parse_devices(const char* parameter, std::string_view text);

// Exactly one device, in the same grammar (so "all" and lists are refused).
DeviceId parse_device(const char* parameter, std::string_view text);

// For work that runs on every core or on one GPU: "cpu" or "gpuN". "numaN" is refused the same way
// everywhere: "the <work> do not run on a single NUMA node" (work: "count windows") when the
// node exists, "no such NUMA node on this machine" when not; the valid forms name the nodes there
// are. `numa_nodes` counts them; it is called only for "numaN" (finding out may be slow).
DeviceId parse_cpu_or_gpu(const char* parameter, std::string_view text,
                          const std::function<std::size_t()>& numa_nodes, std::string_view work);

}  // namespace sextant

#include "core/device.hpp"

#include <algorithm>
#include <charconv>

#include "core/error.hpp"

namespace sextant {

std::string_view to_string(DeviceKind kind) noexcept {
  return kind == DeviceKind::gpu ? "gpu" : "cpu";
}

std::string to_string(DeviceId id) {
  if (id.kind == DeviceKind::gpu) return "gpu" + std::to_string(id.index);
  return id.index < 0 ? "cpu" : "numa" + std::to_string(id.index);
}

bool DeviceSelection::wants_gpu() const noexcept {
  return all || names_gpu();
}

bool DeviceSelection::names_gpu() const noexcept {
  return std::any_of(devices.begin(), devices.end(),
                     [](const DeviceId& d) { return d.kind == DeviceKind::gpu; });
}

bool DeviceSelection::wants_cpu() const noexcept {
  return all || std::any_of(devices.begin(), devices.end(),
                            [](const DeviceId& d) { return d.kind == DeviceKind::cpu; });
}

namespace {
bool parse_indexed(std::string_view item, std::string_view prefix, int& index) {
  if (!item.starts_with(prefix) || item.size() == prefix.size()) return false;
  const char* first = item.data() + prefix.size();
  const char* last = item.data() + item.size();
  const auto [end, ec] = std::from_chars(first, last, index);
  return ec == std::errc{} && end == last && index >= 0;
}
}  // namespace

DeviceSelection parse_devices(const char* parameter, std::string_view text) {
  constexpr std::string_view valid = "'all', or a comma-separated list of cpu, numaN, gpuN";
  DeviceSelection sel;
  if (text == "all") {
    sel.all = true;
    return sel;
  }
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string_view item = text.substr(pos, comma - pos);
    DeviceId id;
    int index = -1;
    if (item == "cpu") {
      id = {DeviceKind::cpu, -1};
    } else if (parse_indexed(item, "gpu", index)) {
      id = {DeviceKind::gpu, index};
    } else if (parse_indexed(item, "numa", index)) {
      id = {DeviceKind::cpu, index};
    } else {
      throw Error::argument(parameter, text, valid, "unknown device '" + std::string(item) + "'");
    }
    if (std::find(sel.devices.begin(), sel.devices.end(), id) != sel.devices.end())
      throw Error::argument(parameter, text, valid, "device '" + std::string(item) + "' named twice");
    sel.devices.push_back(id);
    pos = comma + 1;
  }
  return sel;
}

DeviceId parse_device(const char* parameter, std::string_view text) {
  const DeviceSelection sel = parse_devices(parameter, text);
  if (sel.all || sel.devices.size() != 1)
    throw Error::argument(parameter, text, "one of cpu, numaN, gpuN", "name exactly one device");
  return sel.devices.front();
}

DeviceId parse_cpu_or_gpu(const char* parameter, std::string_view text,
                          const std::function<std::size_t()>& numa_nodes, std::string_view work) {
  const DeviceSelection sel = parse_devices(parameter, text);
  const DeviceId id = sel.devices.empty() ? DeviceId{} : sel.devices.front();
  const bool numa = id.kind == DeviceKind::cpu && id.index >= 0;
  const std::size_t nodes = numa ? numa_nodes() : 0;
  const std::string valid =
      "cpu (every core of " +
      (numa ? "numa0 .. numa" + std::to_string(nodes == 0 ? 0 : nodes - 1) : "the machine") +
      ") or one GPU (gpu0, gpu1, ...)";
  if (sel.all || sel.devices.size() != 1)
    throw Error::argument(parameter, text, valid, "name exactly one device");
  if (numa) {
    if (static_cast<std::size_t>(id.index) >= nodes)
      throw Error::argument(parameter, text, valid, "no such NUMA node on this machine");
    throw Error::argument(parameter, text, valid,
                          "the " + std::string(work) + " do not run on a single NUMA node");
  }
  return id;
}

}  // namespace sextant

#include "scheduler/faults.hpp"

#include <algorithm>
#include <charconv>

#include "core/error.hpp"

namespace sextant::scheduler {

namespace {

bool parse_number(std::string_view text, std::size_t& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size();
}

std::string ordinal(std::size_t k) {
  const char* suffix = (k % 100 >= 11 && k % 100 <= 13) ? "th"
                       : k % 10 == 1                    ? "st"
                       : k % 10 == 2                    ? "nd"
                       : k % 10 == 3                    ? "rd"
                                                        : "th";
  return std::to_string(k) + suffix;
}

}  // namespace

FaultInjection FaultInjection::parse(const char* parameter, std::string_view text) {
  constexpr std::string_view valid = "comma-separated DEVICE@K or workerN@K, e.g. 'gpu0@3,numa1@1' (K >= 1)";
  FaultInjection out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string_view item = text.substr(pos, comma - pos);
    const std::size_t at = item.find('@');
    FaultRule rule;
    if (at == std::string_view::npos || !parse_number(item.substr(at + 1), rule.on_task) || rule.on_task == 0)
      throw Error::argument(parameter, text, valid, "bad fault '" + std::string(item) + "'");
    const std::string_view target = item.substr(0, at);
    std::size_t worker = 0;
    if (target.starts_with("worker") && parse_number(target.substr(6), worker)) {
      rule.worker = static_cast<int>(worker);
    } else {
      const DeviceSelection sel = parse_devices(parameter, target);
      if (sel.all || sel.devices.size() != 1)
        throw Error::argument(parameter, text, valid, "bad fault target '" + std::string(target) + "'");
      rule.device = sel.devices.front();
    }
    out.rules.push_back(rule);
    pos = comma + 1;
  }
  return out;
}

namespace detail {

FaultCounters::FaultCounters(const FaultInjection& faults)
    : rules_(faults.rules), counts_(std::make_unique<std::atomic<std::size_t>[]>(faults.rules.size())) {}

void FaultCounters::before_task(const WorkerInfo& worker) {
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    const FaultRule& rule = rules_[i];
    // A device rule for "cpu" (index -1) matches every CPU worker.
    const bool matches = rule.worker >= 0
                             ? rule.worker == worker.id
                             : rule.device.kind == worker.kind &&
                                   (rule.device.index == worker.device.index ||
                                    (rule.device.kind == DeviceKind::cpu && rule.device.index < 0));
    if (!matches) continue;
    const std::size_t attempt = counts_[i].fetch_add(1, std::memory_order_relaxed) + 1;
    if (attempt == rule.on_task) {
      const std::string who =
          rule.worker >= 0 ? "worker" + std::to_string(rule.worker) : to_string(rule.device);
      throw InjectedFault("injected fault: " + who + " fails on its " + ordinal(rule.on_task) + " task");
    }
  }
}

}  // namespace detail
}  // namespace sextant::scheduler

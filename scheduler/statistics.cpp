#include "scheduler/statistics.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace sextant::scheduler {

namespace {

void add_counters(std::vector<long long>& into, const std::vector<long long>& from) {
  if (from.empty()) return;
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (std::size_t i = 0; i < from.size(); ++i) into[i] += from[i];
}

__attribute__((format(printf, 2, 3))) void append(std::string& out, const char* format, ...) {
  char line[512];
  va_list args;
  va_start(args, format);
  const int n = std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  if (n > 0) out.append(line, std::min(static_cast<std::size_t>(n), sizeof line - 1));
}

double percent(std::size_t part, std::size_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

void append_counters_header(std::string& out, const CounterStatus& counters) {
  for (const std::string& e : counters.events) append(out, " %14s", e.c_str());
}

void append_counter_values(std::string& out, const CounterStatus& counters,
                           const std::vector<long long>& values) {
  for (std::size_t i = 0; i < counters.events.size(); ++i) {
    if (i < values.size()) {
      append(out, " %14lld", values[i]);
    } else {
      append(out, " %14s", "-");
    }
  }
}

}  // namespace

void add_variants(std::vector<VariantStats>& into, const std::vector<VariantStats>& from) {
  for (const VariantStats& v : from) {
    auto it = std::find_if(into.begin(), into.end(), [&](const VariantStats& x) { return x.name == v.name; });
    if (it == into.end()) {
      into.push_back({v.name, 0, 0, 0});
      it = into.end() - 1;
    }
    it->tasks += v.tasks;
    it->items += v.items;
    it->busy_seconds += v.busy_seconds;
  }
}

std::string describe_variants(const std::vector<VariantStats>& variants) {
  std::size_t total = 0;
  for (const VariantStats& v : variants) total += v.items;
  std::vector<const VariantStats*> order;
  for (const VariantStats& v : variants)
    if (!v.name.empty() && v.tasks > 0) order.push_back(&v);
  std::stable_sort(order.begin(), order.end(),
                   [](const VariantStats* a, const VariantStats* b) { return a->items > b->items; });
  std::string out;
  for (const VariantStats* v : order) {
    if (!out.empty()) out += ", ";
    out += v->name;
    if (order.size() > 1) append(out, " %.1f%%", percent(v->items, total));
  }
  return out;
}

std::size_t Statistics::total_tasks() const noexcept {
  std::size_t n = 0;
  for (const auto& w : workers) n += w.tasks;
  return n;
}

std::size_t Statistics::total_items() const noexcept {
  std::size_t n = 0;
  for (const auto& w : workers) n += w.items;
  return n;
}

std::vector<DeviceStats> Statistics::devices() const {
  std::vector<DeviceStats> out;
  const std::size_t total = total_items();
  for (const WorkerStats& w : workers) {
    auto it =
        std::find_if(out.begin(), out.end(), [&](const DeviceStats& d) { return d.device == w.device; });
    if (it == out.end()) {
      out.push_back({});
      it = out.end() - 1;
      it->device = w.device;
    }
    it->workers += 1;
    it->retired_workers += w.retired ? 1 : 0;
    it->tasks += w.tasks;
    it->items += w.items;
    it->failures += w.failures;
    it->busy_seconds += w.busy_seconds;
    it->finish_seconds = std::max(it->finish_seconds, w.finish_seconds);
    add_counters(it->counters, w.counters);
    add_variants(it->variants, w.variants);
  }
  for (DeviceStats& d : out) d.share = percent(d.items, total) / 100.0;
  return out;
}

void Statistics::merge(const Statistics& run) {
  runs += run.runs;
  wall_seconds += run.wall_seconds;
  if (workers.size() < run.workers.size()) workers.resize(run.workers.size());
  for (std::size_t i = 0; i < run.workers.size(); ++i) {
    WorkerStats& w = workers[i];
    const WorkerStats& r = run.workers[i];
    w.worker = r.worker;
    w.device = r.device;
    w.tasks += r.tasks;
    w.items += r.items;
    w.failures += r.failures;
    w.steals += r.steals;
    w.busy_seconds += r.busy_seconds;
    w.finish_seconds += r.finish_seconds;
    w.retired = w.retired || r.retired;
    add_counters(w.counters, r.counters);
    add_variants(w.variants, r.variants);
  }
  failures.insert(failures.end(), run.failures.begin(), run.failures.end());
  if (counters.events.empty()) counters = run.counters;
}

std::string report(const Statistics& s, bool per_worker) {
  std::string out;
  const std::size_t total = s.total_items();
  const bool counters = s.counters.available && !s.counters.events.empty();
  append(out, "%-8s %7s %10s %14s %7s %10s %10s %8s", "device", "workers", "tasks", "items", "share",
         "busy s", "finish s", "failures");
  if (counters) append_counters_header(out, s.counters);
  out += '\n';
  for (const DeviceStats& d : s.devices()) {
    append(out, "%-8s %7d %10zu %14zu %6.1f%% %10.4f %10.4f %8zu", to_string(d.device).c_str(), d.workers,
           d.tasks, d.items, 100.0 * d.share, d.busy_seconds, d.finish_seconds, d.failures);
    if (counters) append_counter_values(out, s.counters, d.counters);
    if (d.retired_workers > 0) append(out, "  (%d retired)", d.retired_workers);
    if (const std::string v = describe_variants(d.variants); !v.empty()) out += "  " + v;
    out += '\n';
  }
  append(out, "%-8s %7zu %10zu %14zu %6.1f%% %10s %10.4f  (%zu run%s, wall s)\n", "total", s.workers.size(),
         s.total_tasks(), total, total == 0 ? 0.0 : 100.0, "", s.wall_seconds, s.runs,
         s.runs == 1 ? "" : "s");
  if (per_worker) {
    append(out, "%-8s %-8s %10s %14s %7s %10s %8s %8s", "worker", "device", "tasks", "items", "share",
           "busy s", "steals", "failures");
    if (counters) append_counters_header(out, s.counters);
    out += '\n';
    for (const WorkerStats& w : s.workers) {
      append(out, "%-8d %-8s %10zu %14zu %6.1f%% %10.4f %8zu %8zu", w.worker, to_string(w.device).c_str(),
             w.tasks, w.items, percent(w.items, total), w.busy_seconds, w.steals, w.failures);
      if (counters) append_counter_values(out, s.counters, w.counters);
      if (w.retired) out += "  retired";
      if (const std::string v = describe_variants(w.variants); !v.empty()) out += "  " + v;
      out += '\n';
    }
  }
  if (!s.counters.events.empty() && !s.counters.available)
    out += "counters unavailable: " + s.counters.reason + '\n';
  if (!s.failures.empty()) {
    out += "failures:\n";
    for (const FailureRecord& f : s.failures) {
      append(out, "  %s (worker %d), task %llu, items [%zu, %zu): ", to_string(f.device).c_str(), f.worker,
             static_cast<unsigned long long>(f.task), f.begin, f.end);
      out += f.message + '\n';  // any length
    }
  }
  return out;
}

std::string report(const RunReport& run, bool per_worker) {
  std::string out = "policy: " + run.policy;
  if (run.status == RunStatus::cancelled) {
    append(out, " (cancelled: %zu tasks / %zu items not run)", run.dropped_tasks, run.dropped_items);
  }
  out += '\n';
  return out + report(run.statistics, per_worker);
}

}  // namespace sextant::scheduler

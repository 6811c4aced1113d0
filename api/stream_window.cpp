#include "api/stream_window.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "api/stream_window_engine.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/number_format.hpp"
#include "core/out_of_memory.hpp"
#include "core/parallel_sort.hpp"

namespace sextant::window {

namespace detail {

std::unique_ptr<StreamWindowEngine> make_cpu_stream_engine(ValueType type, StreamAggregateKind kind,
                                                           const StreamWindowOptions& options, int threads) {
  if (type == ValueType::int32 || type == ValueType::int64)
    return make_cpu_stream_engine_integer(type, kind, options, threads);
  return make_cpu_stream_engine_floating(type, kind, options, threads);
}

}  // namespace detail

namespace {

void free_aligned(void* p) {
  std::free(p);
}

}  // namespace

void StreamResults::clear() {
  specs.clear();
  keys.clear();
  starts.clear();
  ends.clear();
  times.clear();
  std::visit([](auto& v) { v.clear(); }, values);
}

namespace {

// Threads for `n` rows: slices of at least 2^16 rows, below which a thread costs more than it
// saves. Throws Error (invalid argument) below 0.
int sort_team(std::size_t n, int threads) {
  if (threads < 0) throw Error::argument("threads", std::to_string(threads), "0 (every core) or more");
  const std::size_t cores = threads > 0 ? static_cast<std::size_t>(threads)
                                        : std::max<std::size_t>(std::thread::hardware_concurrency(), 1);
  return static_cast<int>(std::clamp<std::size_t>(n >> 16, 1, cores));
}

}  // namespace

StreamResults::Groups StreamResults::groups(int threads) const {
  const std::size_t n = size();
  const auto parts = static_cast<std::size_t>(sort_team(n, threads));
  struct Extent {
    StreamKey low = std::numeric_limits<StreamKey>::max(), high = 0;
    std::uint32_t spec = 0;
  };
  std::vector<Extent> extents(parts);
  sextant::detail::run_parts(parts, [&](std::size_t p) {
    const auto [b, e] = sextant::detail::part_bounds(n, parts, p);
    Extent x;
    for (std::size_t i = b; i < e; ++i) {
      x.low = std::min(x.low, keys[i]);
      x.high = std::max(x.high, keys[i]);
      x.spec = std::max(x.spec, specs[i]);
    }
    extents[p] = x;
  });
  Extent all;
  for (const Extent& x : extents) {
    all.low = std::min(all.low, x.low);
    all.high = std::max(all.high, x.high);
    all.spec = std::max(all.spec, x.spec);
  }
  if (n == 0) return {};
  Groups g;
  g.low = all.low;
  g.range = std::uint64_t{all.high} - all.low + 1;
  g.bits = static_cast<unsigned>(std::bit_width(all.spec * g.range + (g.range - 1)));
  return g;
}

ColumnVector<std::size_t> StreamResults::order(int threads) const {
  const std::size_t n = size();
  const int team = sort_team(n, threads);
  if (n == 0) return {};
  const Groups of = groups(team);
  const auto group = [&](std::size_t i) { return of(specs[i], keys[i]); };
  const auto parts = static_cast<std::size_t>(team);
  ColumnVector<std::size_t> order = radix_order_on_threads(n, group, of.bits, team);
  // A (spec, key)'s windows fire in increasing start, so its rows are in order already; where they
  // do not (an engine that fires otherwise), the (spec, key)'s rows are sorted by start, stably:
  // equal windows keep their firing order. Parts start where a (spec, key) does.
  std::vector<std::size_t> bounds(parts + 1, n);
  for (std::size_t p = 0; p < parts; ++p) {
    std::size_t b = std::max(sextant::detail::part_bounds(n, parts, p).first, p > 0 ? bounds[p - 1] : 0);
    while (b > 0 && b < n && group(order[b]) == group(order[b - 1])) ++b;
    bounds[p] = b;
  }
  sextant::detail::run_parts(parts, [&](std::size_t p) {
    sort_stretches_by_start(order.begin() + static_cast<std::ptrdiff_t>(bounds[p]),
                            order.begin() + static_cast<std::ptrdiff_t>(bounds[p + 1]), group,
                            [&](std::size_t i) { return starts[i]; });
  });
  return order;
}

void StreamResults::sort(int threads) {
  const int team = sort_team(size(), threads);
  const ColumnVector<std::size_t> order = this->order(team);
  gather_on_threads(specs, order, team);
  gather_on_threads(keys, order, team);
  gather_on_threads(starts, order, team);
  gather_on_threads(ends, order, team);
  if (!times.empty()) gather_on_threads(times, order, team);
  std::visit([&](auto& v) { gather_on_threads(v, order, team); }, values);
}

void StreamResults::append_value(std::string& out, std::size_t i) const {
  std::visit([&](const auto& v) { append_number(out, v[i]); }, values);
}

ValueType stream_result_type(ValueType value, StreamAggregateKind kind) noexcept {
  return visit_value_type(value, [&](auto v) {
    return visit_stream_aggregate<decltype(v)>(
        kind, [](auto a) { return value_type_of<typename OutputValue<typename decltype(a)::Output>::type>; });
  });
}

StreamWindow::StreamWindow(ValueType value_type, StreamAggregateKind aggregate,
                           const StreamWindowOptions& options, const StreamDeviceOptions& device)
    : value_type_(value_type),
      aggregate_(aggregate),
      result_type_(stream_result_type(value_type, aggregate)),
      aggregate_name_(to_string(aggregate)),
      device_(device) {
  make_geometry(options);  // validates before any backend allocates
  if (device.threads < 0)
    throw Error::argument("threads", std::to_string(device.threads), "0 (every core) or more");
  if (device.device.kind == DeviceKind::cpu) {
    engine_ = detail::make_cpu_stream_engine(value_type, aggregate, options, device.threads);
    return;
  }
  engine_ = detail::make_gpu_stream_engine(value_type, aggregate, options, device);
}

StreamWindow::StreamWindow(ValueType value_type, ValueType result_type, std::string name,
                           const StreamDeviceOptions& device,
                           std::unique_ptr<detail::StreamWindowEngine> engine)
    : value_type_(value_type),
      result_type_(result_type),
      custom_(true),
      aggregate_name_(std::move(name)),
      device_(device),
      engine_(std::move(engine)) {}

void StreamWindow::check_custom(const StreamWindowOptions& options, const StreamDeviceOptions& device,
                                std::string_view name) {
  make_geometry(options);
  if (device.threads < 0)
    throw Error::argument("threads", std::to_string(device.threads), "0 (every core) or more");
  if (device.device.kind != DeviceKind::cpu)
    throw Error::unsupported("the user-defined aggregate '" + std::string(name) +
                             "' runs on the CPU only, not on " + to_string(device.device) +
                             "; a GPU needs its kernels compiled with the aggregate (gpu/window/)");
}

StreamWindow::~StreamWindow() = default;
StreamWindow::StreamWindow(StreamWindow&&) noexcept = default;
StreamWindow& StreamWindow::operator=(StreamWindow&&) noexcept = default;

void StreamWindow::advance_watermark(std::int64_t watermark) {
  engine_->advance_watermark(watermark);
}

void StreamWindow::push(const ErasedStreamBatch& batch) {
  if (batch.values.type != value_type_)
    throw Error::argument("batch values", std::string(to_string(batch.values.type)),
                          std::string(to_string(value_type_)),
                          "the operator was built for another value type");
  engine_->push(batch);
}

std::size_t StreamWindow::poll(StreamResults& out) {
  const ValueType type = result_type();
  if (out.size() == 0 && type_of(out.values) != type) out.values = make_column(type, 0);
  if (type_of(out.values) != type)
    throw Error::argument("results", std::string(to_string(type_of(out.values))),
                          std::string(to_string(type)), "the results hold windows of another result type");
  return engine_->poll(out);
}

void StreamWindow::finish() {
  engine_->finish();
}
StreamCounters StreamWindow::counters() const {
  return engine_->counters();
}
std::int64_t StreamWindow::watermark() const {
  return engine_->watermark();
}
const StreamGeometry& StreamWindow::geometry() const {
  return engine_->geometry();
}

std::string StreamWindow::describe() const {
  std::string out = to_string(device_.device) + ": " + engine_->stages();
  if (device_.device.kind == DeviceKind::cpu)
    out += device_.threads > 0 ? ", " + std::to_string(device_.threads) + " threads" : ", every core";
  return out;
}

HostBuffer StreamWindow::allocate_host(std::size_t bytes) const {
  if (device_.device.kind == DeviceKind::gpu) return detail::allocate_gpu_host(device_.device.index, bytes);
  const std::size_t rounded = std::max<std::size_t>(64, (bytes + 63) / 64 * 64);
  void* p = std::aligned_alloc(64, rounded);
  if (p == nullptr) throw_out_of_memory(rounded);
  return HostBuffer(p, bytes, free_aligned);
}

}  // namespace sextant::window

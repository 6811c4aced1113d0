#include "templates/window/stream_spec.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <string>

#include "core/error.hpp"
#include "templates/window/stream_aggregates.hpp"

namespace sextant::window {

std::string_view to_string(WindowType type) noexcept {
  return type == WindowType::time ? "time" : "count";
}

WindowType parse_window_type(const char* parameter, std::string_view text) {
  if (text == "time") return WindowType::time;
  if (text == "count") return WindowType::count;
  throw Error::argument(parameter, text, "time or count", "unknown window type");
}

std::string_view to_string(WindowStageKind kind) noexcept {
  switch (kind) {
    case WindowStageKind::bpat:
      return "bpat";
    case WindowStageKind::scan:
      return "scan";
    case WindowStageKind::dense:
      return "dense";
    default:
      return "auto";
  }
}

WindowStageKind parse_window_stage(const char* parameter, std::string_view text) {
  if (text == "auto") return WindowStageKind::automatic;
  if (text == "bpat") return WindowStageKind::bpat;
  if (text == "scan") return WindowStageKind::scan;
  if (text == "dense") return WindowStageKind::dense;
  throw Error::argument(parameter, text, "auto, bpat, scan or dense", "unknown window stage");
}

std::string_view to_string(StreamAggregateKind kind) noexcept {
  switch (kind) {
    case StreamAggregateKind::sum:
      return "sum";
    case StreamAggregateKind::count:
      return "count";
    case StreamAggregateKind::min:
      return "min";
    case StreamAggregateKind::max:
      return "max";
    case StreamAggregateKind::avg:
      return "avg";
    case StreamAggregateKind::var:
      return "var";
    case StreamAggregateKind::argmin:
      return "argmin";
    case StreamAggregateKind::argmax:
      return "argmax";
    case StreamAggregateKind::first:
      return "first";
    case StreamAggregateKind::last:
      return "last";
  }
  return "?";
}

StreamAggregateKind parse_stream_aggregate(const char* parameter, std::string_view text) {
  for (auto kind : {StreamAggregateKind::sum, StreamAggregateKind::count, StreamAggregateKind::min,
                    StreamAggregateKind::max, StreamAggregateKind::avg, StreamAggregateKind::var,
                    StreamAggregateKind::argmin, StreamAggregateKind::argmax, StreamAggregateKind::first,
                    StreamAggregateKind::last})
    if (text == to_string(kind)) return kind;
  throw Error::argument(parameter, text, "sum, count, min, max, avg, var, argmin, argmax, first or last",
                        "unknown aggregate");
}

namespace {

void check_range(const std::string& parameter, std::int64_t value, std::int64_t lo) {
  if (value < lo || value > WindowSpec::max_parameter)
    throw Error::argument(parameter, std::to_string(value),
                          std::to_string(lo) + " .. " + std::to_string(WindowSpec::max_parameter));
}

}  // namespace

StreamGeometry make_geometry(const StreamWindowOptions& options) {
  if (options.specs.empty())
    throw Error::argument("window specs", "none", "at least one window specification", "nothing to compute");
  StreamGeometry g;
  g.type = options.specs.front().type;
  g.lateness = options.lateness;
  g.windows_per_tree = options.windows_per_tree;
  g.window_stage = options.window_stage;
  if (static_cast<unsigned>(options.window_stage) > static_cast<unsigned>(WindowStageKind::dense))
    throw Error::argument("window stage", std::to_string(static_cast<unsigned>(options.window_stage)),
                          "auto, bpat, scan or dense", "unknown window stage");
  check_range("lateness", options.lateness, 0);
  check_range("windows per tree", options.windows_per_tree, 1);
  if (g.type == WindowType::count && options.window_stage == WindowStageKind::dense)
    throw Error::argument("window stage", "dense", "auto, bpat or scan for count windows",
                          "the dense scan needs every key's panes aligned in time");
  if (g.type == WindowType::count && options.lateness != 0)
    throw Error::argument("lateness", std::to_string(options.lateness), "0 for count windows",
                          "count windows ignore timestamps, so they have no lateness");
  std::int64_t pane = 0;
  for (std::size_t i = 0; i < options.specs.size(); ++i) {
    const WindowSpec& s = options.specs[i];
    const std::string where = options.specs.size() == 1 ? "" : " of window spec " + std::to_string(i);
    if (s.type != g.type)
      throw Error::argument("type" + where, std::string(to_string(s.type)), std::string(to_string(g.type)),
                            "every window spec of one operator has the same type");
    check_range("length" + where, s.length, 1);
    check_range("slide" + where, s.slide, 1);
    pane = std::gcd(pane, std::gcd(s.length, s.slide));
  }
  g.pane = pane;
  if (g.type == WindowType::time) {
    std::int64_t widest = 0;
    for (const WindowSpec& s : options.specs) widest = std::max(widest, s.length + s.slide);
    g.max_timestamp = INT64_MAX - (std::int64_t{1} << 42) - options.lateness - widest;
  }
  for (std::size_t i = 0; i < options.specs.size(); ++i) {
    const WindowSpec& s = options.specs[i];
    const std::string where = options.specs.size() == 1 ? "" : " of window spec " + std::to_string(i);
    SpecGeometry sg;
    sg.spec = s;
    sg.panes_per_window = s.length / pane;
    sg.panes_per_slide = s.slide / pane;
    const auto leaves = static_cast<std::uint64_t>(sg.panes_per_window) +
                        static_cast<std::uint64_t>(options.windows_per_tree - 1) *
                            static_cast<std::uint64_t>(sg.panes_per_slide);
    if (leaves > (std::uint64_t{1} << 40)) {
      // w <= 2^40 always (length <= 2^40), so n_w = 1 always fits this bound.
      const std::int64_t fits = ((std::int64_t{1} << 40) - sg.panes_per_window) / sg.panes_per_slide + 1;
      throw Error(ErrorKind::bad_argument,
                  "length " + std::to_string(s.length) + ", slide " + std::to_string(s.slide) + where +
                      " and windows per tree " + std::to_string(options.windows_per_tree) +
                      ": one B-PAT would span (n_w - 1) * slide + length = " + std::to_string(leaves) +
                      " panes of " + std::to_string(pane) +
                      " time units, more than 2^40 (valid: windows per " + "tree 1 .. " +
                      std::to_string(fits) + " for this length and slide)");
    }
    sg.tree_leaves = static_cast<std::int64_t>(std::bit_ceil(leaves));
    sg.tree_levels = static_cast<int>(std::bit_width(static_cast<std::uint64_t>(sg.panes_per_window)));
    g.specs.push_back(sg);
  }
  return g;
}

std::size_t first_timestamp_above(const std::int64_t* ts, std::size_t n, std::int64_t limit) noexcept {
  // One branch-free pass (it vectorises); the rare hit is located afterwards.
  std::int64_t top = 0;
  for (std::size_t i = 0; i < n; ++i) top = std::max(top, ts[i]);
  if (top <= limit) return n;
  for (std::size_t i = 0; i < n; ++i)
    if (ts[i] > limit) return i;
  return n;
}

void throw_timestamp_above(std::string_view tuple, std::int64_t ts, std::int64_t limit) {
  throw Error(ErrorKind::bad_input,
              std::string(tuple) + ": timestamp " + std::to_string(ts) +
                  " is above the largest one whose windows can be represented (valid: 0 .. " +
                  std::to_string(limit) + " = 2^63 - 1 - 2^42 - lateness - max(length + slide))");
}

void throw_unrepresentable_window(std::string_view aggregate, std::string_view problem, std::uint32_t spec,
                                  std::uint32_t key, std::int64_t start, std::int64_t end) {
  throw Error(ErrorKind::bad_input, std::string(aggregate) + " of key " + std::to_string(key) + ", window [" +
                                        std::to_string(start) + ", " + std::to_string(end) + ") of spec " +
                                        std::to_string(spec) + ": " + std::string(problem));
}

}  // namespace sextant::window

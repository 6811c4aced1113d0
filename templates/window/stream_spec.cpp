#include "templates/window/stream_spec.hpp"

#include <bit>
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
  }
  return "?";
}

StreamAggregateKind parse_stream_aggregate(const char* parameter, std::string_view text) {
  for (auto kind : {StreamAggregateKind::sum, StreamAggregateKind::count, StreamAggregateKind::min,
                    StreamAggregateKind::max, StreamAggregateKind::avg, StreamAggregateKind::var})
    if (text == to_string(kind)) return kind;
  throw Error::argument(parameter, text, "sum, count, min, max, avg or var", "unknown aggregate");
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
  check_range("lateness", options.lateness, 0);
  check_range("windows per tree", options.windows_per_tree, 1);
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
  for (const WindowSpec& s : options.specs) {
    SpecGeometry sg;
    sg.spec = s;
    sg.panes_per_window = s.length / pane;
    sg.panes_per_slide = s.slide / pane;
    const auto leaves = static_cast<std::uint64_t>(sg.panes_per_window) +
                        static_cast<std::uint64_t>(options.windows_per_tree - 1) *
                            static_cast<std::uint64_t>(sg.panes_per_slide);
    if (leaves > (std::uint64_t{1} << 40))
      throw Error::argument("windows per tree", std::to_string(options.windows_per_tree),
                            "a value with (n_w - 1) * slide + length <= 2^40 panes", "tree too large");
    sg.tree_leaves = static_cast<std::int64_t>(std::bit_ceil(leaves));
    sg.tree_levels = static_cast<int>(std::bit_width(static_cast<std::uint64_t>(sg.panes_per_window)));
    g.specs.push_back(sg);
  }
  return g;
}

}  // namespace sextant::window

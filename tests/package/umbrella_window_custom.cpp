// <sextant/window_custom.hpp> compiles on its own and instantiates the CPU stream backend for a
// user-defined aggregate (from the installed headers alone in the package consumer).
#include <sextant/window_custom.hpp>
#include <string_view>

namespace {

struct Span {  // max - min of int64 values
  static constexpr std::string_view name = "span";
  using Input = std::int64_t;
  struct Acc {
    std::int64_t lo, hi;
  };
  using Output = std::int64_t;
  static Acc identity() { return {INT64_MAX, INT64_MIN}; }
  static Acc lift(std::int64_t x) { return {x, x}; }
  static Acc combine(Acc a, Acc b) { return {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi}; }
  static Output lower(Acc a) { return a.hi - a.lo; }
};

}  // namespace

sextant::window::StreamWindow make_span_window(const sextant::window::StreamWindowOptions& options) {
  return sextant::window::StreamWindow::with_aggregate<Span>(options);
}

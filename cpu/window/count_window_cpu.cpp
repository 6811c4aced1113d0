#include "cpu/window/count_window_cpu.hpp"

#include <optional>

#include "cpu/window/count_window_variants.hpp"

namespace sextant::window {

namespace {

// f(variant) for the first registered variant this CPU can run (the scalar one always can).
template <class F>
decltype(auto) with_first_runnable(F&& f) {
  return std::apply(
      [&](auto... variants) {
        std::optional<decltype(f(std::get<0>(CpuCountWindowVariants{})))> out;
        ((out || !variants.can_run({}) ? void() : void(out.emplace(f(variants)))), ...);
        return *out;
      },
      CpuCountWindowVariants{});
}

}  // namespace

void CpuCountWindow::run(const CountWindowArgs& args) const {
  with_first_runnable([&](auto variant) {
    variant.threads = threads;
    variant.run(args);
    return true;
  });
}

std::string_view CpuCountWindow::isa() {
  return with_first_runnable([](auto variant) { return decltype(variant)::isa; });
}

}  // namespace sextant::window

#include "cpu/window/count_window_cpu.hpp"

#include "cpu/simd/isa.hpp"

namespace sextant::window {

namespace detail {
void count_window_cpu_avx2(const CountWindowArgs& args, int threads);
void count_window_cpu_scalar(const CountWindowArgs& args, int threads);
}  // namespace detail

void CpuCountWindow::run(const CountWindowArgs& args) const {
  check_columns(args.in, args.out, args.spec, args.kind, args.positions);
  cpu::dispatch_isa([&](auto isa) {
    if constexpr (std::is_same_v<decltype(isa), cpu::Avx2Isa>)
      detail::count_window_cpu_avx2(args, threads);
    else
      detail::count_window_cpu_scalar(args, threads);
  });
}

std::string_view CpuCountWindow::isa() {
  return cpu::dispatch_isa([](auto isa) { return decltype(isa)::name; });
}

}  // namespace sextant::window

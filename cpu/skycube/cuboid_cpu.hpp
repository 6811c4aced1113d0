// CPU cuboid hooks for the lattice templates (paper 004, Section 5.1): the Hybrid-style tiled
// skyline of cuboid_engine.hpp, producing S_δ and S+_δ \ S_δ of the candidates. One kind runs on
// the calling thread (STSC runs many at once), the other on an OpenMP team (SDSC).
//
// Each kind exists once per instruction set (cpu/simd/isa.hpp), as a variant the scheduler
// measures and picks from (cuboid_variants.hpp): SequentialCuboidCpuOn<Isa>,
// ParallelCuboidCpuOn<Isa>. SequentialCuboidCpu and ParallelCuboidCpu run the best set allowed
// here, for code outside the scheduler.
#pragma once

#include <array>
#include <string_view>
#include <type_traits>

#include "core/device.hpp"
#include "cpu/simd/isa.hpp"
#include "cpu/skycube/cuboid_engine.hpp"
#include "templates/skycube/hooks.hpp"

namespace sextant::cpu {

namespace detail {

// "<base>-<isa>" as a constant (a variant's name keys the rates the scheduler remembers).
template <const std::string_view& Base, class Isa>
inline constexpr auto isa_name_chars = [] {
  std::array<char, Base.size() + 1 + Isa::name.size()> out{};
  std::size_t at = 0;
  for (const char c : Base) out[at++] = c;
  out[at++] = '-';
  for (const char c : Isa::name) out[at++] = c;
  return out;
}();
template <const std::string_view& Base, class Isa>
inline constexpr std::string_view isa_name{isa_name_chars<Base, Isa>.data(),
                                           isa_name_chars<Base, Isa>.size()};

inline constexpr std::string_view sequential_cuboid_name = "cpu-hybrid-cuboid";
inline constexpr std::string_view parallel_cuboid_name = "cpu-hybrid-cuboid-parallel";

// Throws Error (unsupported) unless cpu::allowed<Isa>(): a variant run where the scheduler would
// not offer it fails with a message instead of an illegal instruction.
void check_allowed(bool allowed, std::string_view variant);

// The input's candidates; every point of the dataset as a range (no id list to read) when the
// list holds as many ids as the dataset has points (ascending distinct ids: all of them).
inline CandidateList candidates_of(const skycube::CuboidInput& in) noexcept {
  if (in.candidates.size() == in.data.size()) return {{}, in.data.size(), true};
  return {in.candidates};
}

}  // namespace detail

// The cuboid hook on the calling thread, compiled for one instruction set.
template <class Isa>
struct SequentialCuboidCpuOn {
  static constexpr std::string_view name = detail::isa_name<detail::sequential_cuboid_name, Isa>;
  static constexpr DeviceKind device_kind = DeviceKind::cpu;
  static constexpr bool parallel = false;
  static constexpr bool fallback = std::is_same_v<Isa, ScalarIsa>;  // only where no SIMD runs
  static bool can_run() { return allowed<Isa>(); }

  void compute(const skycube::CuboidInput& in, skycube::CuboidOutput& out) {
    detail::check_allowed(can_run(), name);
    engine.get().run(in.data, detail::candidates_of(in), in.subspace, true, 1, out.skyline, out.extended_only,
                     detail::cuboid_kernels<Isa>(), in.skyline_only);
  }

  detail::EngineCache engine{};
};

// The cuboid hook on an OpenMP team of `threads`, compiled for one instruction set.
template <class Isa>
struct ParallelCuboidCpuOn {
  static constexpr std::string_view name = detail::isa_name<detail::parallel_cuboid_name, Isa>;
  static constexpr DeviceKind device_kind = DeviceKind::cpu;
  static constexpr bool parallel = true;
  static constexpr bool fallback = std::is_same_v<Isa, ScalarIsa>;
  static bool can_run() { return allowed<Isa>(); }

  int threads = 1;  // OpenMP threads for one cuboid

  void compute(const skycube::CuboidInput& in, skycube::CuboidOutput& out) {
    detail::check_allowed(can_run(), name);
    engine.get().run(in.data, detail::candidates_of(in), in.subspace, true, threads, out.skyline,
                     out.extended_only, detail::cuboid_kernels<Isa>(), in.skyline_only);
  }

  detail::EngineCache engine{};
};

// The best instruction set allowed here, chosen once per compute() (dispatch_isa_avx512).
struct SequentialCuboidCpu {
  static constexpr std::string_view name = detail::sequential_cuboid_name;
  static constexpr DeviceKind device_kind = DeviceKind::cpu;
  static constexpr bool parallel = false;

  void compute(const skycube::CuboidInput& in, skycube::CuboidOutput& out);

  detail::EngineCache engine{};
};

struct ParallelCuboidCpu {
  static constexpr std::string_view name = detail::parallel_cuboid_name;
  static constexpr DeviceKind device_kind = DeviceKind::cpu;
  static constexpr bool parallel = true;

  int threads = 1;  // OpenMP threads for one cuboid

  void compute(const skycube::CuboidInput& in, skycube::CuboidOutput& out);

  detail::EngineCache engine{};
};

static_assert(skycube::SequentialCuboidHook<SequentialCuboidCpu>);
static_assert(skycube::ParallelCuboidHook<ParallelCuboidCpu>);
static_assert(skycube::SequentialCuboidHook<SequentialCuboidCpuOn<ScalarIsa>>);
static_assert(skycube::ParallelCuboidHook<ParallelCuboidCpuOn<ScalarIsa>>);
static_assert(SequentialCuboidCpuOn<Avx512Isa>::name == "cpu-hybrid-cuboid-avx512");

}  // namespace sextant::cpu

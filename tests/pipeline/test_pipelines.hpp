// Small pipelines for the executor tests (CPU and GPU): gains 0 .. 3, a filter, an exact-gain node
// and item types of different sizes, so every queue and merge path is used; and nodes that break
// their gain limit on one input. Their expected outputs are computed by fan_reference(), written
// as plain nested loops.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/host_device.hpp"
#include "templates/pipeline/hooks.hpp"
#include "templates/pipeline/pipeline.hpp"

namespace sextant::pipeline::testing {

struct Pair {
  std::uint32_t value;
  std::uint32_t tag;
  friend bool operator==(const Pair&, const Pair&) = default;
};

// x -> x * 8 + j for j < x % 4 (0 .. 3 outputs).
struct Split {
  static constexpr std::string_view name = "split";
  using Input = std::uint32_t;
  using Output = std::uint32_t;
  static constexpr unsigned gain_limit = 3;
  template <class Emit>
  static SEXTANT_HD void run(const Input& x, Emit& out) {
    for (std::uint32_t j = 0; j < x % 4; ++j) out.push(x * 8 + j);
  }
};

// y -> y + 1 unless y is a multiple of 3. A parameter shifts the kept values.
struct KeepParams {
  std::uint32_t shift = 1;
};
struct Keep {
  static constexpr std::string_view name = "keep";
  using Input = std::uint32_t;
  using Output = std::uint32_t;
  using Params = KeepParams;
  static constexpr unsigned gain_limit = 1;
  template <class Emit>
  static SEXTANT_HD void run(const Params& p, const Input& y, Emit& out) {
    if (y % 3 != 0) out.push(y + p.shift);
  }
};

// y -> {y, salt}, {y, salt + 1}: exactly two, with a per-replica salt built from the parameter.
struct TwinParams {
  std::uint32_t seed = 7;
};
struct TwinState {
  std::uint32_t salt = 0;
};
struct Twin {
  static constexpr std::string_view name = "twin";
  using Input = std::uint32_t;
  using Output = Pair;
  using Params = TwinParams;
  using State = TwinState;
  static constexpr unsigned gain_limit = 2;
  static constexpr GainKind gain_kind = GainKind::exact;
  static SEXTANT_HD void init(const Params& p, State& s) { s.salt = p.seed * 100; }
  template <class Emit>
  static SEXTANT_HD void run(const Params&, const State& s, const Input& y, Emit& out) {
    out.push(Pair{y, s.salt});
    out.push(Pair{y, s.salt + 1});
  }
};

// {v, t} -> v * 1000 + t as 64 bits, exactly one.
struct Widen {
  static constexpr std::string_view name = "widen";
  using Input = Pair;
  using Output = std::uint64_t;
  static constexpr unsigned gain_limit = 1;
  static constexpr GainKind gain_kind = GainKind::exact;
  template <class Emit>
  static SEXTANT_HD void run(const Input& p, Emit& out) {
    out.push(std::uint64_t{p.value} * 1000 + p.tag);
  }
};

using FanPipeline = Pipeline<Split, Keep, Twin, Widen>;

// The expected sink items, in input order, for sources first .. first + n - 1 (plain loops).
inline std::vector<std::uint64_t> fan_reference(std::uint32_t first, std::uint32_t n, std::uint32_t shift,
                                                std::uint32_t seed) {
  std::vector<std::uint64_t> out;
  for (std::uint32_t s = first; s < first + n; ++s)
    for (std::uint32_t j = 0; j < s % 4; ++j) {
      const std::uint32_t a = s * 8 + j;
      if (a % 3 == 0) continue;
      const std::uint32_t b = a + shift;
      out.push_back(std::uint64_t{b} * 1000 + seed * 100);
      out.push_back(std::uint64_t{b} * 1000 + seed * 100 + 1);
    }
  return out;
}

// Pushes x % 4 + 1 outputs while declaring at most 3: breaks its limit on every x with x % 4 == 3.
struct Liar {
  static constexpr std::string_view name = "liar";
  using Input = std::uint32_t;
  using Output = std::uint32_t;
  static constexpr unsigned gain_limit = 3;
  template <class Emit>
  static SEXTANT_HD void run(const Input& x, Emit& out) {
    for (std::uint32_t j = 0; j <= x % 4; ++j) out.push(x + j);
  }
};
using LiarPipeline = Pipeline<Keep, Liar, Keep>;

// Declares exactly 2 but pushes one output for x % 5 == 4.
struct Uneven {
  static constexpr std::string_view name = "uneven";
  using Input = std::uint32_t;
  using Output = std::uint32_t;
  static constexpr unsigned gain_limit = 2;
  static constexpr GainKind gain_kind = GainKind::exact;
  template <class Emit>
  static SEXTANT_HD void run(const Input& x, Emit& out) {
    out.push(x);
    if (x % 5 != 4) out.push(x + 1);
  }
};
using UnevenPipeline = Pipeline<Uneven, Keep>;

}  // namespace sextant::pipeline::testing

// The skycube templates' view of the offered hook variants (core/worker_hooks.hpp): a backend
// registers its offers beside its code (cpu/skycube/*_variants.hpp, gpu/gpu_backends.cpp); the
// template turns the whole list into the team's variants, whatever devices they are for.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "core/task_team.hpp"
#include "core/worker_hooks.hpp"

namespace sextant::skycube {

using sextant::Offer;
using sextant::offers_of;

// The hooks of a list of offers, one slot per (offer, worker), made on first use by each worker.
template <class... Makes>
class OfferedHooks {
 public:
  static_assert(sizeof...(Makes) > 0, "offer at least one hook");
  using Hooks = std::tuple<WorkerHooks<Makes>...>;
  template <std::size_t I>
  using Hook = typename std::tuple_element_t<I, Hooks>::Hook;

  OfferedHooks(int workers, Offer<Makes>... offers)
      : hooks_{WorkerHooks<Makes>(std::move(offers.make), workers)...}, runnable_{offers.runnable...} {}

  // Calls f(hooks, index) for every offer: hooks is its WorkerHooks (Hook type: its ::Hook).
  template <class F>
  void for_each(F&& f) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (..., f(std::get<I>(hooks_), I));
    }
    (std::index_sequence_for<Makes...>{});
  }

  // The team's variants: one per offer, fn = body(hooks) (a function (begin, end, worker)).
  template <class Body>
  std::vector<TeamVariant> variants(Body&& body) {
    std::vector<TeamVariant> out;
    for_each([&](auto& hooks, std::size_t i) {
      using H = typename std::remove_reference_t<decltype(hooks)>::Hook;
      bool fallback = false;
      if constexpr (requires { H::fallback; }) fallback = H::fallback;
      out.push_back({H::name, H::device_kind, runnable_[i], body(hooks), fallback});
    });
    return out;
  }

  // Makes every worker's hooks of the worker's kind that this machine can run, and runs
  // setup(hook) on each (GPU workers concurrently); a failure is kept for the worker's first use.
  template <DeviceTeam Team, class Setup>
  void prepare(Team& team, Setup&& setup) {
    team.for_each_worker([&](int worker) {
      for_each([&](auto& hooks, std::size_t i) {
        using H = typename std::remove_reference_t<decltype(hooks)>::Hook;
        if (runnable_[i] && H::device_kind == team.kind(worker)) hooks.prepare(worker, setup);
      });
    });
  }

 private:
  Hooks hooks_;
  std::array<bool, sizeof...(Makes)> runnable_;
};

}  // namespace sextant::skycube

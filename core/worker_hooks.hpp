// Hook variants offered to a template that runs on a DeviceTeam (core/task_team.hpp), and the
// hooks each worker makes of them. Every family's template uses these.
//
// An Offer is a factory worker -> hook (the hook type says what it is: its name and device kind)
// and whether this machine can run it (an instruction set, a GPU). A backend registers its hook
// types in a list beside its code (cpu/<family>/*_variants.hpp); offers_of turns such a list into
// offers, and the template turns the offers into the team's variants, whatever devices they are for.
//
// WorkerHooks holds one hook per worker, made the first time that worker needs it, so each keeps
// its scratch or device buffers to itself and no worker holds a hook it cannot use. A failure while
// preparing a hook is kept and thrown at that worker's first task, where the team handles it like
// any device failure (the work moves elsewhere, the device is retired for the run).
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace sextant {

template <class Make>
struct Offer {
  Make make;
  bool runnable = true;
};
template <class Make>
Offer(Make, bool) -> Offer<Make>;

namespace detail {
struct LeaveAsMade {
  template <class Hook>
  void operator()(Hook&, int) const {}
};
}  // namespace detail

// One offer per hook type of a registration list (a std::tuple of hook types with a static
// can_run()): each worker gets a fresh hook, passed to configure(hook, worker) first (e.g. to give
// it the worker's cores).
template <class Variants, class Configure = detail::LeaveAsMade>
auto offers_of(Configure configure = {}) {
  return [&configure]<class... Hooks>(std::tuple<Hooks...>*) {
    return std::tuple{Offer{[configure](int worker) {
                              Hooks hook{};
                              configure(hook, worker);
                              return hook;
                            },
                            Hooks::can_run()}...};
  }(static_cast<Variants*>(nullptr));
}

// Make: callable as make(int worker) from several threads at once (one worker each).
template <class Make>
class WorkerHooks {
 public:
  using Hook = std::remove_cvref_t<std::invoke_result_t<Make&, int>>;

  WorkerHooks(Make make, int workers)
      : make_(std::move(make)), slots_(static_cast<std::size_t>(std::max(workers, 1))) {}

  // Worker `worker`'s hook, made on first use; rethrows the failure of its preparation. Only that
  // worker calls this (a worker runs one task at a time), so it takes no lock.
  Hook& at(int worker) {
    Slot& slot = slots_[static_cast<std::size_t>(worker)];
    if (slot.failure) std::rethrow_exception(slot.failure);
    if (!slot.hook) slot.hook.emplace(make_(worker));
    return *slot.hook;
  }

  // Makes the worker's hook and runs setup(hook) on it; an exception is kept for at(). Nothing runs
  // on a worker whose hook already failed.
  template <class Setup>
  void prepare(int worker, Setup&& setup) noexcept {
    Slot& slot = slots_[static_cast<std::size_t>(worker)];
    if (slot.failure) return;
    try {
      if (!slot.hook) slot.hook.emplace(make_(worker));
      setup(*slot.hook);
    } catch (...) {
      slot.failure = std::current_exception();
    }
  }

  bool failed(int worker) const {
    return static_cast<bool>(slots_[static_cast<std::size_t>(worker)].failure);
  }

 private:
  struct Slot {
    std::optional<Hook> hook;
    std::exception_ptr failure;
  };
  Make make_;
  std::vector<Slot> slots_;
};

}  // namespace sextant

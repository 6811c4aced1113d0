// Per-worker hooks of a template that runs on a DeviceTeam. The caller passes a factory
// (worker -> hook: it knows what a worker is, e.g. which GPU or how many cores), and each worker
// makes its own hook the first time it needs one, so it keeps its scratch or device buffers to
// itself and no worker holds a hook it cannot use. A failure while preparing a hook is kept and
// thrown on that worker's first task, where the team handles it like any device failure (the work
// moves elsewhere, the device is retired for the run).
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace sextant::skycube {

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

  // Makes the worker's hook and runs setup(hook) on it; an exception is kept for at().
  template <class Setup>
  void prepare(int worker, Setup&& setup) noexcept {
    Slot& slot = slots_[static_cast<std::size_t>(worker)];
    try {
      if (!slot.hook) slot.hook.emplace(make_(worker));
      setup(*slot.hook);
    } catch (...) {
      slot.failure = std::current_exception();
    }
  }

 private:
  struct Slot {
    std::optional<Hook> hook;
    std::exception_ptr failure;
  };
  Make make_;
  std::vector<Slot> slots_;
};

// A factory argument that names no hook: the template passes no implementation for that kind.
template <class Make>
inline constexpr bool no_hook = std::is_null_pointer_v<std::remove_cvref_t<Make>>;

}  // namespace sextant::skycube

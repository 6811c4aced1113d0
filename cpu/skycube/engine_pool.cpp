// The engines kept between calls (cuboid_engine.hpp: take_engine, keep_engine).
#include <array>
#include <mutex>

#include "cpu/skycube/cuboid_engine.hpp"

namespace sextant::cpu::detail {

namespace {

// A fixed stack of slots: keeping an engine never allocates.
struct KeptEngines {
  struct Slot {
    std::unique_ptr<CuboidEngine> engine;
    std::size_t bytes = 0;  // its buffers when kept
  };
  std::mutex mutex;
  std::array<Slot, CuboidPolicy::kept_engines> slots;  // [0, count): the last kept on top
  std::size_t count = 0;
  std::size_t total = 0;
};

// Never destroyed: hooks that die during static destruction (a thread_local one, say) still keep
// their engines, which stay reachable from here until the process ends.
KeptEngines& kept() {
  static KeptEngines* engines = new KeptEngines;
  return *engines;
}

}  // namespace

std::unique_ptr<CuboidEngine> take_engine() {
  KeptEngines& k = kept();
  {
    const std::lock_guard lock(k.mutex);
    if (k.count > 0) {
      KeptEngines::Slot& top = k.slots[--k.count];
      k.total -= top.bytes;
      return std::move(top.engine);
    }
  }
  return std::make_unique<CuboidEngine>();
}

// An engine over either bound is freed when `engine` goes out of scope, after the lock is released.
void keep_engine(std::unique_ptr<CuboidEngine> engine) noexcept {
  if (!engine) return;
  const std::size_t bytes = engine->capacity_bytes();
  KeptEngines& k = kept();
  const std::lock_guard lock(k.mutex);
  if (k.count == k.slots.size() || k.total + bytes > CuboidPolicy::kept_bytes) return;
  k.slots[k.count++] = {std::move(engine), bytes};
  k.total += bytes;
}

std::pair<std::size_t, std::size_t> kept_engines() noexcept {
  KeptEngines& k = kept();
  const std::lock_guard lock(k.mutex);
  return {k.count, k.total};
}

}  // namespace sextant::cpu::detail

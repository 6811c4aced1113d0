// The engines kept between calls (cuboid_engine.hpp: take_engine, keep_engine).
#include <mutex>
#include <vector>

#include "cpu/skycube/cuboid_engine.hpp"

namespace sextant::cpu::detail {

namespace {

struct KeptEngines {
  std::mutex mutex;
  std::vector<std::unique_ptr<CuboidEngine>> engines;  // the last kept on top
  std::vector<std::size_t> bytes;                      // each one's buffers when kept
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
    if (!k.engines.empty()) {
      std::unique_ptr<CuboidEngine> engine = std::move(k.engines.back());
      k.engines.pop_back();
      k.total -= k.bytes.back();
      k.bytes.pop_back();
      return engine;
    }
  }
  return std::make_unique<CuboidEngine>();
}

void keep_engine(std::unique_ptr<CuboidEngine> engine) noexcept {
  if (!engine) return;
  const std::size_t bytes = engine->capacity_bytes();
  KeptEngines& k = kept();
  const std::lock_guard lock(k.mutex);
  if (k.engines.size() >= CuboidPolicy::kept_engines || k.total + bytes > CuboidPolicy::kept_bytes) return;
  try {
    k.engines.reserve(CuboidPolicy::kept_engines);
    k.bytes.reserve(CuboidPolicy::kept_engines);
  } catch (...) {
    return;  // out of memory: the engine is freed (after the lock is released) instead
  }
  k.engines.push_back(std::move(engine));
  k.bytes.push_back(bytes);
  k.total += bytes;
}

std::pair<std::size_t, std::size_t> kept_engines() noexcept {
  KeptEngines& k = kept();
  const std::lock_guard lock(k.mutex);
  return {k.engines.size(), k.total};
}

}  // namespace sextant::cpu::detail

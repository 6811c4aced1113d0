// Work-stealing queues. ChaseLevDeque is the bounded Chase-Lev deque (Lê et al., PPoPP 2013) with
// sequentially consistent accesses to top/bottom instead of stand-alone fences (ThreadSanitizer
// understands those); the owner pushes and pops at the bottom, thieves steal at the top. A thief
// may look at the top element and decline it (steal_if), so a worker never takes a task it cannot
// execute. RangeSlot is the parallel_for counterpart: a range of items the owner eats from the
// front while thieves split off the back.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>

namespace sextant::scheduler::detail {

inline constexpr std::size_t cache_line = 64;

template <class T>
requires std::is_trivially_copyable_v<T>
class ChaseLevDeque {
 public:
  enum class Steal { taken, empty, declined, lost_race };
  struct StealResult {
    Steal status = Steal::empty;
    T value{};
  };

  explicit ChaseLevDeque(std::size_t capacity = 0) { reserve(capacity); }

  // Only while no other thread uses the deque.
  void reserve(std::size_t capacity) {
    const std::size_t cap = std::bit_ceil(std::max<std::size_t>(capacity, 2));
    buffer_ = std::make_unique<std::atomic<T>[]>(cap);
    mask_ = cap - 1;
    top_.store(0, std::memory_order_relaxed);
    bottom_.store(0, std::memory_order_relaxed);
  }
  std::size_t capacity() const noexcept { return mask_ + 1; }

  // Owner only. False when full (the deque does not grow: a run sizes it up front).
  bool push(T value) noexcept {
    const std::int64_t b = bottom_.load(std::memory_order_relaxed);
    const std::int64_t t = top_.load(std::memory_order_acquire);
    if (b - t > static_cast<std::int64_t>(mask_)) return false;
    slot(b).store(value, std::memory_order_relaxed);
    bottom_.store(b + 1, std::memory_order_release);
    return true;
  }

  // Owner only: the most recently pushed element.
  std::optional<T> pop() noexcept {
    const std::int64_t b = bottom_.load(std::memory_order_relaxed) - 1;
    bottom_.store(b, std::memory_order_seq_cst);
    std::int64_t t = top_.load(std::memory_order_seq_cst);
    if (t > b) {  // empty
      bottom_.store(b + 1, std::memory_order_relaxed);
      return std::nullopt;
    }
    T value = slot(b).load(std::memory_order_relaxed);
    if (t == b) {  // last element: race the thieves for it
      const bool won =
          top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed);
      bottom_.store(b + 1, std::memory_order_relaxed);
      if (!won) return std::nullopt;
    }
    return value;
  }

  // Any thread: the oldest element, if `accept(element)` says so.
  template <class Accept>
  StealResult steal_if(Accept&& accept) noexcept {
    std::int64_t t = top_.load(std::memory_order_seq_cst);
    const std::int64_t b = bottom_.load(std::memory_order_seq_cst);
    if (t >= b) return {Steal::empty, T{}};
    T value = slot(t).load(std::memory_order_relaxed);
    if (!accept(value)) return {Steal::declined, T{}};
    if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed))
      return {Steal::lost_race, T{}};
    return {Steal::taken, value};
  }
  StealResult steal() noexcept {
    return steal_if([](const T&) { return true; });
  }

  // A snapshot; exact only while nobody else touches the deque.
  std::size_t size() const noexcept {
    const std::int64_t b = bottom_.load(std::memory_order_relaxed);
    const std::int64_t t = top_.load(std::memory_order_relaxed);
    return b > t ? static_cast<std::size_t>(b - t) : 0;
  }

 private:
  std::atomic<T>& slot(std::int64_t i) noexcept { return buffer_[static_cast<std::size_t>(i) & mask_]; }

  alignas(cache_line) std::atomic<std::int64_t> top_{0};
  alignas(cache_line) std::atomic<std::int64_t> bottom_{0};
  std::unique_ptr<std::atomic<T>[]> buffer_;
  std::size_t mask_ = 0;
};

struct ItemRange {
  std::size_t begin = 0;
  std::size_t end = 0;

  std::size_t size() const noexcept { return end - begin; }
  bool empty() const noexcept { return begin >= end; }
};

// A worker's share of a parallel_for range. A mutex suffices: the owner takes it once per chunk
// and thieves only after a lock-free look at `remaining()`.
class RangeSlot {
 public:
  void reset(ItemRange range) {
    std::lock_guard lock(mutex_);
    range_ = range;
    publish();
  }

  // Owner: the first chunk(remaining) items (at least one while any remain).
  template <class ChunkFor>
  ItemRange take_front(ChunkFor&& chunk_for) {
    std::lock_guard lock(mutex_);
    if (range_.empty()) return {};
    const std::size_t n = clamp(chunk_for(range_.size()));
    const ItemRange out{range_.begin, range_.begin + n};
    range_.begin += n;
    publish();
    return out;
  }

  // Thief: the last amount(remaining) items.
  template <class AmountFor>
  ItemRange take_back(AmountFor&& amount_for) {
    std::lock_guard lock(mutex_);
    if (range_.empty()) return {};
    const std::size_t n = clamp(amount_for(range_.size()));
    const ItemRange out{range_.end - n, range_.end};
    range_.end -= n;
    publish();
    return out;
  }

  ItemRange take_all() {
    return take_back([](std::size_t remaining) { return remaining; });
  }

  // Lock-free hint for thieves; exact once the slot is quiescent.
  std::size_t remaining() const noexcept { return remaining_.load(std::memory_order_relaxed); }

 private:
  std::size_t clamp(std::size_t n) const noexcept { return std::clamp<std::size_t>(n, 1, range_.size()); }
  void publish() noexcept { remaining_.store(range_.size(), std::memory_order_relaxed); }

  std::mutex mutex_;
  ItemRange range_;
  std::atomic<std::size_t> remaining_{0};
};

}  // namespace sextant::scheduler::detail

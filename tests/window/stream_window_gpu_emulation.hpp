// The GPU stream-window stages run on the host: the same control flow (PaneCore, WindowCore)
// and the same per-element steps (stream_gpu_items.hpp) with a sequential executor in place of
// CUDA, so the algorithm is tested on any machine, without a GPU, and under the sanitizers.
#pragma once

#include <algorithm>
#include <cstring>
#include <numeric>
#include <utility>
#include <vector>

#include "gpu/window/stream_pane_stage_gpu.hpp"
#include "gpu/window/stream_window_stage_gpu.hpp"

namespace sextant::window::detail::stream_gpu {

class HostExec {
 public:
  explicit HostExec(int) {}

  template <class T>
  class Buffer {
   public:
    T* data() noexcept { return data_.data(); }
    const T* data() const noexcept { return data_.data(); }
    std::size_t capacity() const noexcept { return data_.size(); }
    // Contents are lost on growth; poisoned so that a read of what nothing wrote shows.
    void reserve(HostExec&, std::size_t n) {
      if (n <= data_.size()) return;
      data_.assign(std::max<std::size_t>(n, 1), poison());
    }
    void grow_keep(HostExec&, std::size_t keep, std::size_t n, const T& fill) {
      if (n <= data_.size()) return;
      std::vector<T> next(n, fill);
      std::copy(data_.begin(), data_.begin() + static_cast<std::ptrdiff_t>(std::min(keep, data_.size())),
                next.begin());
      data_ = std::move(next);
    }

   private:
    static T poison() {
      T t;
      std::memset(static_cast<void*>(&t), 0xA5, sizeof(T));
      return t;
    }
    std::vector<T> data_;
  };

  template <class F>
  void for_each(std::size_t n, const F& f) {
    for (std::size_t i = 0; i < n; ++i) f(i);
  }
  template <class T>
  void copy(T* dst, const T* src, std::size_t n) {
    if (n > 0) std::memmove(static_cast<void*>(dst), src, n * sizeof(T));
  }
  template <class T>
  void read(T* host, const T* src, std::size_t n) {
    copy(host, src, n);
  }
  template <class T>
  void read_later(T* host, const T* src, std::size_t n) {
    copy(host, src, n);
  }
  template <class T, class U>
  void read(T* a, const T* src_a, std::size_t na, U* b, const U* src_b, std::size_t nb) {
    copy(a, src_a, na);
    copy(b, src_b, nb);
  }
  // Level by level, as the definition reads.
  template <StreamAggregate A>
  void build_tree(const TreeView<A>& t) {
    for (int l = 1; l < t.levels; ++l)
      for_each(t.size[l], BuildLevel<A>{t.nodes + t.offset[l - 1], t.size[l - 1], t.nodes + t.offset[l]});
  }
  void sync() {}
  void drain() {}

  ChunkColumns upload(const HostColumns& b, std::size_t first, std::size_t n, int) {
    ChunkColumns c;
    c.keys = b.keys != nullptr ? b.keys + first : nullptr;
    c.ts = b.ts != nullptr ? b.ts + first : nullptr;
    c.values =
        b.values != nullptr
            ? const_cast<unsigned char*>(static_cast<const unsigned char*>(b.values) + first * b.value_bytes)
            : nullptr;
    c.wms = b.wms != nullptr ? b.wms + first : nullptr;
    c.n = n;
    return c;
  }
  void begin_chunk(int) {}
  void end_chunk(int) {}

  void prepare(const PrepareArgs& a, std::size_t n, PrepareStats* stats) {
    PrepareStats s;
    for (std::size_t i = 0; i < n; ++i) prepare_tuple(a, i, s);
    stats->merge(s);
  }

  void max_scan(const i64* in, i64* out, std::size_t n, i64 init) {
    for (std::size_t i = 0; i < n; ++i) {
      out[i] = init;
      init = std::max(init, in[i]);
    }
  }

  // Stable by the low `end_bit` bits; the result goes to buffer 1 (buffer 0 may be the
  // caller's read-only batch here).
  template <class K>
  int sort_pairs(K* keys[2], void* values[2], std::size_t value_bytes, std::size_t n, int end_bit) {
    const K mask = end_bit >= static_cast<int>(8 * sizeof(K)) ? ~K{0} : static_cast<K>((K{1} << end_bit) - 1);
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return (keys[0][a] & mask) < (keys[0][b] & mask); });
    for (std::size_t i = 0; i < n; ++i) keys[1][i] = keys[0][order[i]];
    if (value_bytes > 0) {
      const auto* in = static_cast<const unsigned char*>(values[0]);
      auto* out = static_cast<unsigned char*>(values[1]);
      for (std::size_t i = 0; i < n; ++i)
        std::memcpy(out + i * value_bytes, in + order[i] * value_bytes, value_bytes);
    }
    return 1;
  }

  template <class T>
  void inclusive_sum(const T* in, T* out, std::size_t n) {
    T acc = 0;
    for (std::size_t i = 0; i < n; ++i) out[i] = acc += in[i];
  }

  void segment_starts(const u32* slots, u32* out, std::size_t n) {
    const SegmentHead head{slots};
    u32 acc = 0;
    for (std::size_t i = 0; i < n; ++i) out[i] = acc = std::max(acc, head(i));
  }

  template <StreamAggregate A>
  void reduce_by_key(const u64* keys, const typename A::Input* values, std::size_t n, u64* out_keys,
                     Partial<A>* out_parts, u64* runs) {
    u64 r = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const Partial<A> p = Partial<A>::lift(values != nullptr ? values[i] : typename A::Input{}, {});
      if (i > 0 && keys[i] == keys[i - 1]) {
        out_parts[r - 1] = Partial<A>::combine(out_parts[r - 1], p);
      } else {
        out_keys[r] = keys[i];
        out_parts[r] = p;
        ++r;
      }
    }
    *runs = r;
  }

  template <StreamAggregate A>
  void reduce_by_key_at(const u64* keys, const u32* order, const typename A::Input* values, const i64* ts,
                        std::size_t n, u64* out_keys, Partial<A>* out_parts, u64* runs) {
    const LiftAtOp<A> lift{order, values, ts};
    u64 r = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const Partial<A> p = lift(i);
      if (i > 0 && keys[i] == keys[i - 1]) {
        out_parts[r - 1] = Partial<A>::combine(out_parts[r - 1], p);
      } else {
        out_keys[r] = keys[i];
        out_parts[r] = p;
        ++r;
      }
    }
    *runs = r;
  }
};

// The emulated backend: a StreamBackend like GpuStreamBackend, on the host.
struct EmulatedGpuStreamBackend {
  using Config = GpuStreamBackend::Config;
  static constexpr bool lifts_with_context = GpuStreamBackend::lifts_with_context;
  template <StreamAggregate A>
  using PaneStage = PaneCore<A, HostExec>;
  template <StreamAggregate A>
  using WindowStage = WindowCore<A, HostExec>;
};

}  // namespace sextant::window::detail::stream_gpu

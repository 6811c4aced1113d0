// Fired windows as columns: what a window stage appends to and what StreamWindowOperator::poll
// hands out. Row i is (specs[i], keys[i], starts[i], ends[i], values[i]); the positional
// aggregates (argmin, argmax, first, last) add times[i], the selected tuple's timestamp. Columns,
// not rows, so that results reach the facade's StreamResults, NumPy or a writer without being
// converted (a row type costs a pass over every result per hand-over).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "core/column_vector.hpp"
#include "templates/window/stream_aggregates.hpp"
#include "templates/window/stream_batch.hpp"

namespace sextant::window {

template <class Output>
struct WindowColumns {
  using Value = typename OutputValue<Output>::type;
  static constexpr bool selected = !std::is_same_v<Output, Value>;  // Selected<V>: values + times

  ColumnVector<std::uint32_t> specs;  // index into StreamWindowOptions::specs
  ColumnVector<StreamKey> keys;
  ColumnVector<std::int64_t> starts;  // k*S
  ColumnVector<std::int64_t> ends;    // k*S + W (exclusive)
  ColumnVector<Value> values;
  ColumnVector<std::int64_t> times;  // selected only; else empty

  std::size_t size() const noexcept { return keys.size(); }
  bool empty() const noexcept { return keys.empty(); }
  void clear() noexcept { resize(0); }
  void reserve(std::size_t n) {
    specs.reserve(n);
    keys.reserve(n);
    starts.reserve(n);
    ends.reserve(n);
    values.reserve(n);
    if constexpr (selected) times.reserve(n);
  }
  void resize(std::size_t n) {
    specs.resize(n);
    keys.resize(n);
    starts.resize(n);
    ends.resize(n);
    values.resize(n);
    if constexpr (selected) times.resize(n);
  }
  void swap(WindowColumns& o) noexcept {
    specs.swap(o.specs);
    keys.swap(o.keys);
    starts.swap(o.starts);
    ends.swap(o.ends);
    values.swap(o.values);
    times.swap(o.times);
  }
  void set(std::size_t i, std::uint32_t spec, StreamKey key, std::int64_t start, std::int64_t end,
           const Output& v) noexcept {
    specs[i] = spec;
    keys[i] = key;
    starts[i] = start;
    ends[i] = end;
    if constexpr (selected) {
      values[i] = v.value;
      times[i] = v.at;
    } else {
      values[i] = v;
    }
  }
  WindowResult<Output> row(std::size_t i) const {
    WindowResult<Output> r;
    r.spec = specs[i];
    r.key = keys[i];
    r.start = starts[i];
    r.end = ends[i];
    if constexpr (selected)
      r.value = Output{values[i], times[i]};
    else
      r.value = values[i];
    return r;
  }
  void push_back(const WindowResult<Output>& r) {
    const std::size_t n = size();
    resize(n + 1);
    set(n, r.spec, r.key, r.start, r.end, r.value);
  }
  // Copies rows [first, first + n) of `from` to rows [at, at + n) (both already sized; `from`
  // may be these columns, the rows overlapping).
  void copy_rows(std::size_t at, const WindowColumns& from, std::size_t first, std::size_t n) noexcept {
    if (n == 0) return;
    const auto copy = [&](auto& dst, const auto& src) {
      std::memmove(dst.data() + at, src.data() + first, n * sizeof(dst[0]));
    };
    copy(specs, from.specs);
    copy(keys, from.keys);
    copy(starts, from.starts);
    copy(ends, from.ends);
    copy(values, from.values);
    if constexpr (selected) copy(times, from.times);
  }
  // Appends every row of `from`.
  void append(const WindowColumns& from) {
    const std::size_t old = size();
    resize(old + from.size());
    copy_rows(old, from, 0, from.size());
  }
  std::vector<WindowResult<Output>> rows() const {
    std::vector<WindowResult<Output>> out(size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = row(i);
    return out;
  }
};

namespace detail {
// Appends rows to WindowColumns without a call per row (fine slides emit a window per pane):
// grows the columns in steps that double. `trim`: cut the columns to the rows appended when done;
// else they keep their grown size as capacity (a buffer reused from push to push, whose row count
// is size()). Or fills a Region of columns sized beforehand, never resizing them (other threads
// fill their other rows); more rows than the region holds is a logic_error.
template <class Output>
class ColumnAppender {
 public:
  struct Region {
    std::size_t from, end;
  };
  ColumnAppender(WindowColumns<Output>& c, std::size_t from, bool trim)
      : c_(c), n_(from), cap_(c.size()), trim_(trim) {
    bind();
  }
  ColumnAppender(WindowColumns<Output>& c, Region r)
      : c_(c), n_(r.from), cap_(r.end), trim_(false), fixed_(true) {
    bind();
  }
  ~ColumnAppender() {
    if (trim_) c_.resize(n_);
  }
  ColumnAppender(const ColumnAppender&) = delete;
  ColumnAppender& operator=(const ColumnAppender&) = delete;

  [[gnu::always_inline]] void push(std::uint32_t spec, StreamKey key, std::int64_t start, std::int64_t end,
                                   const Output& v) {
    if (n_ == cap_) [[unlikely]]
      grow();
    specs_[n_] = spec;
    keys_[n_] = key;
    starts_[n_] = start;
    ends_[n_] = end;
    if constexpr (WindowColumns<Output>::selected) {
      values_[n_] = v.value;
      times_[n_] = v.at;
    } else {
      values_[n_] = v;
    }
    ++n_;
  }
  std::size_t size() const noexcept { return n_; }

 private:
  void bind() noexcept {
    specs_ = c_.specs.data();
    keys_ = c_.keys.data();
    starts_ = c_.starts.data();
    ends_ = c_.ends.data();
    values_ = c_.values.data();
    times_ = c_.times.data();
  }
  [[gnu::noinline]] void grow() {
    if (fixed_) throw std::logic_error("window results: more rows than the region sized for them");
    c_.resize(n_ + step_);
    step_ = std::min<std::size_t>(2 * step_, std::size_t{1} << 20);
    cap_ = c_.size();
    bind();
  }
  WindowColumns<Output>& c_;
  std::size_t n_;
  std::size_t cap_;
  bool trim_;
  bool fixed_ = false;
  std::size_t step_ = 256;
  std::uint32_t* specs_ = nullptr;
  StreamKey* keys_ = nullptr;
  std::int64_t* starts_ = nullptr;
  std::int64_t* ends_ = nullptr;
  typename WindowColumns<Output>::Value* values_ = nullptr;
  std::int64_t* times_ = nullptr;
};
}  // namespace detail

}  // namespace sextant::window

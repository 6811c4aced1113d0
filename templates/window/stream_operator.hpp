// The two-stage stream-window template (paper 000): a pane-level stage that pre-aggregates
// out-of-order tuples into pane partials and releases the panes the watermark closes, and a
// window-level stage that turns closed panes into window results on a B-PAT. Several window
// specifications over one stream share the pane stage (pane = gcd of every length and slide).
//
//   StreamWindowOperator<CpuStreamBackend, SumAggregate<std::int64_t>> op(options, config);
//   op.push(batch);      // any number of times; watermarks travel with the tuples
//   op.poll(results);    // appends the windows fired so far (firing order), as columns
//   op.finish();         // end of stream: every open window fires (time windows)
//   op.poll(results);
//
// Errors: invalid options throw from the constructor; a bad batch (e.g. a timestamp above
// geometry().max_timestamp) throws from push and leaves the operator as it was; push after
// finish throws. A window that cannot be represented (an int64 sum overflow, an infinite
// double) throws from push or finish naming its key and window; the operator is then failed
// and every later call throws.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "templates/window/stream_hooks.hpp"

namespace sextant::window {

template <class Backend, StreamAggregate A>
requires StreamBackend<Backend, A>
class StreamWindowOperator {
 public:
  using Value = typename A::Input;
  using Output = typename A::Output;
  using Result = WindowResult<Output>;
  using Results = WindowColumns<Output>;
  using Config = typename Backend::Config;
  using PaneStage = typename Backend::template PaneStage<A>;
  using WindowStage = typename Backend::template WindowStage<A>;

  explicit StreamWindowOperator(const StreamWindowOptions& options, const Config& config = {})
      : geometry_(make_geometry(options)), panes_(geometry_, config), windows_(geometry_, config) {}

  void push(const StreamBatch<Value>& batch) {
    if (failed_) throw Error::unsupported("push after an error: the operator has failed");
    if (finished_) throw Error::unsupported("push after finish: the stream has ended");
    panes_.push(batch);  // the pane stage checks the timestamps (limits included) first
    ++batches_;
    failed_ = true;  // until the window stage has taken the panes
    panes_.release(closed_);
    windows_.advance(closed_, fired_);
    failed_ = false;
  }

  // A watermark without tuples: taken like a tuple's watermark (the running maximum; a lower one
  // is ignored and counted), then the windows it completes fire. Count windows ignore it.
  void advance_watermark(std::int64_t wm) {
    if (failed_) throw Error::unsupported("advance_watermark after an error: the operator has failed");
    if (finished_) throw Error::unsupported("advance_watermark after finish: the stream has ended");
    panes_.advance_watermark(wm);
    failed_ = true;  // until the window stage has taken the panes
    panes_.release(closed_);
    windows_.advance(closed_, fired_);
    failed_ = false;
  }

  // Appends the windows fired since the last poll to `out`; returns how many. An empty `out`
  // trades buffers with the operator: no copy, and its capacity serves the next windows.
  std::size_t poll(Results& out) {
    const std::size_t n = fired_.size();
    emitted_ += n;
    if (out.empty())
      out.swap(fired_);
    else
      out.append(fired_);
    fired_.clear();
    return n;
  }
  // The same as rows (tests, small callers): a pass over the results.
  std::size_t poll(std::vector<Result>& out) {
    const std::size_t n = fired_.size();
    emitted_ += n;
    const std::size_t old = out.size();
    out.resize(old + n);  // grows geometrically: callers that keep appending stay linear
    for (std::size_t i = 0; i < n; ++i) out[old + i] = fired_.row(i);
    fired_.clear();
    return n;
  }

  void finish() {
    if (failed_) throw Error::unsupported("finish after an error: the operator has failed");
    if (finished_) return;
    finished_ = true;
    failed_ = true;
    panes_.release_all(closed_);
    windows_.advance(closed_, fired_);
    failed_ = false;
  }

  StreamCounters counters() const {
    StreamCounters c = panes_.counters();
    c.windows_emitted = emitted_ + fired_.size();
    c.batches = batches_;
    return c;
  }
  std::int64_t watermark() const { return panes_.watermark(); }
  const StreamGeometry& geometry() const noexcept { return geometry_; }
  static constexpr auto pane_stage_name = PaneStage::name;
  static constexpr auto window_stage_name = WindowStage::name;
  // The window stage's name and, for a stage that chooses per spec, its choice ("<name> scan").
  std::string window_stage() const {
    if constexpr (requires { windows_.describe(); })
      return std::string(WindowStage::name) + " " + windows_.describe();
    else
      return std::string(WindowStage::name);
  }

 private:
  StreamGeometry geometry_;
  PaneStage panes_;
  WindowStage windows_;
  typename PaneStage::ClosedPanes closed_{};
  Results fired_;
  std::uint64_t emitted_ = 0;
  std::uint64_t batches_ = 0;
  bool finished_ = false;
  bool failed_ = false;
};

}  // namespace sextant::window

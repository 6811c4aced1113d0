// The hooks of the stream-window template (paper 000, SPRINGALD) as concepts. A backend is a
// type that names a matched pair of specialisations, one per stage, that share a memory space
// (host memory for the CPU, device memory for a GPU):
//
//   struct MyBackend {
//     struct Config { ... };                     // threads, device ordinal, streams, ...
//     template <StreamAggregate A> using PaneStage = ...;
//     template <StreamAggregate A> using WindowStage = ...;
//   };
//
// Both stages are constructed from (const StreamGeometry&, const Config&). The template
// (stream_operator.hpp) owns the control flow: push -> pane stage; release the closed panes;
// window stage; results. It never asks which device it runs on.
#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/device.hpp"
#include "templates/window/stream_aggregates.hpp"
#include "templates/window/stream_batch.hpp"
#include "templates/window/stream_results.hpp"
#include "templates/window/stream_spec.hpp"

namespace sextant::window {

template <class S>
concept StreamSpecialisation = requires {
  { S::name } -> std::convertible_to<std::string_view>;
  { S::device_kind } -> std::convertible_to<DeviceKind>;
};

// Pane-level stage (PLS). Keeps, per key, the pending (not yet closed) pane partials in a
// circular buffer that grows and shrinks with the disorder.
//   push(batch): checks the batch first (a negative timestamp throws Error naming the tuple's
//     index in the batch, and leaves the stage unchanged); then, in arrival order semantics,
//     drops and counts late tuples (ts + L < operator watermark at the tuple's arrival; time
//     windows only), counts ignored watermarks (lower than the operator's), pre-aggregates the
//     rest into per-(key, pane) partials — out of order within and across batches — and merges
//     them into the pending panes. Count windows number each key's tuples in arrival order and
//     use positions instead of timestamps.
//   release(closed): replaces `closed` with every pending pane that is closed now (time:
//     id < geometry.closed_panes(watermark); count: full panes) and the frontier below which
//     every pane is closed, per key for count windows. Panes without tuples are not listed.
//   release_all(closed): end of stream. Time windows: every pending pane, frontier = no limit.
//     Count windows: like release (a partial pane never completes a window).
//   advance_watermark(wm): a watermark without tuples (a source's heartbeat), taken like a
//     tuple's: the running maximum; a lower one (not no_watermark) is ignored and counted.
template <class S, class A, class V = typename A::Input>
concept PaneStageHook = StreamSpecialisation<S> && StreamAggregate<A> &&
    requires(S& s, const S& cs, const StreamBatch<V>& batch, typename S::ClosedPanes& closed,
             std::int64_t wm) {
  typename S::ClosedPanes;
  s.push(batch);
  s.advance_watermark(wm);
  s.release(closed);
  s.release_all(closed);
  { cs.watermark() } -> std::same_as<std::int64_t>;          // no_watermark before the first one
  { cs.counters() } -> std::convertible_to<StreamCounters>;  // tuples_in, late, ignored
};

// Window-level stage (WLS). Keeps, per key and spec, a flat pointer-less B-PAT whose leaves
// are closed panes (levels stored contiguously, only levels <= log2(panes per window)).
//   advance(closed, out): writes the closed panes into the leaves, updates the affected
//     internal nodes, and appends to the columns `out` every window that is complete now (all
//     its panes below the frontier) and received at least one tuple, each computed with O(log)
//     combines. Each window is emitted exactly once over the life of the stage.
template <class S, class A, class Closed>
concept WindowStageHook = StreamSpecialisation<S> && StreamAggregate<A> &&
    requires(S& s, const Closed& closed, WindowColumns<typename A::Output>& out) {
  s.advance(closed, out);
};

template <class B, class A>
concept StreamBackend = StreamAggregate<A> && requires {
  typename B::Config;
} && PaneStageHook<typename B::template PaneStage<A>, A> &&
    WindowStageHook < typename B::template WindowStage<A>,
    A,
typename B::template PaneStage<A>::ClosedPanes >
    &&std::constructible_from<typename B::template PaneStage<A>, const StreamGeometry&,
                              const typename B::Config&>&&
        std::constructible_from<typename B::template WindowStage<A>, const StreamGeometry&,
                                const typename B::Config&>;

}  // namespace sextant::window

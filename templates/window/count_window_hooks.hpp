// The count-window template and its hooks (paper 001, section 3.2: slicing and expansion).
//
// slice_and_expand() is the template: it owns the control flow (geometry, partial storage,
// the two steps) and calls two hooks that a specialisation provides for its device:
//   * a SliceHook pre-aggregates the input into two partials per slide-long chunk (C, A; see
//     chunk_geometry.hpp) held in the device's memory;
//   * an ExpandHook turns those partials into one result per window.
// The CPU specialisation and REDUCED-PREFIX on the GPU are such compositions. GBL, SH and
// COOP-OPT run both steps inside one kernel (the partials never leave registers or shared
// memory) and DIRECT-PREFIX has no slicing step; they satisfy the end-to-end concept
// CountWindowAlgorithm directly, with their slicing and expansion as device-side policy types.
#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>

#include "core/device.hpp"
#include "templates/window/chunk_geometry.hpp"
#include "templates/window/count_window.hpp"

namespace sextant::window {

// The algorithms of the paper; `automatic` asks the selector (Slider).
// block_scan is ours: van Herk / Gil-Werman for functions with neither an atomic nor an inverse.
enum class CountAlgorithm : std::uint8_t {
  automatic,
  gbl,
  sh,
  coop,
  direct_prefix,
  reduced_prefix,
  block_scan
};

// Every named algorithm, in enum order.
inline constexpr CountAlgorithm all_count_algorithms[] = {CountAlgorithm::gbl,
                                                          CountAlgorithm::sh,
                                                          CountAlgorithm::coop,
                                                          CountAlgorithm::direct_prefix,
                                                          CountAlgorithm::reduced_prefix,
                                                          CountAlgorithm::block_scan};

std::string_view to_string(CountAlgorithm algorithm) noexcept;
// "auto|gbl|sh|coop|direct-prefix|reduced-prefix|block-scan"; throws Error naming `parameter`.
CountAlgorithm parse_count_algorithm(const char* parameter, std::string_view text);

// One run: the input and the K results, both in the memory of the specialisation's device.
struct CountWindowArgs {
  ColumnView in;
  MutableColumnView out;
  CountWindowSpec spec;
  AggregateKind kind = AggregateKind::sum;
  // argmin, argmax, first, last (reports_position): the K positions, same memory as `out`.
  std::int64_t* positions = nullptr;

  CountWindowProblem problem() const noexcept { return {in.size, spec, in.type, kind}; }
};

// An end-to-end specialisation: names itself, says where it runs, whether it can serve a
// problem (resources, invertibility) and runs it.
template <class A>
concept CountWindowAlgorithm = requires(A& a, const CountWindowArgs& args, const CountWindowProblem& p) {
  { A::name } -> std::convertible_to<std::string_view>;
  { A::device_kind } -> std::convertible_to<DeviceKind>;
  { a.can_run(p) } -> std::same_as<bool>;
  a.run(args);
};

// C[j] and A[j] for the chunks of one run, in the device's memory. `lifted` != nullptr means
// C[j] = lift(lifted[j]) (S == 1: the chunks are the values, nothing is materialised).
template <class Acc>
struct ChunkPartials {
  Acc* full = nullptr;  // C, g.chunks entries
  Acc* head = nullptr;  // A, g.chunks entries; unused (may be null) when g.rest == 0 and q > 0
  const void* lifted = nullptr;
};

// Agg is one of the Aggregate<T, K> traits (aggregate_traits.hpp).
template <class H, class Agg>
concept SliceHook = requires(H& h, const ChunkGeometry& g, const typename Agg::Input* in,
                             const ChunkPartials<typename Agg::Acc>& p) {
  { h.allocate(Agg{}, g, in) } -> std::same_as<ChunkPartials<typename Agg::Acc>>;
  h.slice(Agg{}, g, in, p);
};

template <class H, class Agg>
concept ExpandHook = requires(H& h, const ChunkGeometry& g, const ChunkPartials<typename Agg::Acc>& p,
                              typename Agg::Acc* out) {
  h.expand(Agg{}, g, p, out);
};

// The template: K = 0 does nothing; otherwise slice, then expand, into out[0 .. K).
template <class Agg, class Slice, class Expand>
requires SliceHook<Slice, Agg> && ExpandHook<Expand, Agg>
void slice_and_expand(Slice& slice, Expand& expand, const ChunkGeometry& g, const typename Agg::Input* in,
                      typename Agg::Acc* out) {
  if (g.windows == 0) return;
  const ChunkPartials<typename Agg::Acc> partials = slice.allocate(Agg{}, g, in);
  slice.slice(Agg{}, g, in, partials);
  expand.expand(Agg{}, g, partials, out);
}

}  // namespace sextant::window

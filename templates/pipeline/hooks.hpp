// The hook of the pipeline family: a node. A node is a plain type that says what it consumes and
// emits and how much it may emit, and one `run` body that a lane calls on one input; the body is
// written once, as a host-and-device function (SEXTANT_HD), and pushes its outputs through an
// emitter. No spec language and no code generator: the C++ compiler compiles the pipeline.
//
//   struct Square {
//     static constexpr std::string_view name = "square";
//     using Input = std::uint32_t;
//     using Output = std::uint64_t;
//     static constexpr unsigned gain_limit = 1;                // u_i: outputs per input, at most ...
//     static constexpr GainKind gain_kind = GainKind::exact;   // ... or exactly (optional)
//     template <class Emit>
//     static SEXTANT_HD void run(const Input& x, Emit& out) { out.push(std::uint64_t{x} * x); }
//   };
//
// Optional members:
//   using Params = P;  read-only parameters (trivially copyable: they travel to a GPU by value;
//                      arrays as pointers, see params_to_device below). run may take them first:
//                      run(const Params&, const Input&, Emit&).
//   using State = S;   a per-replica object built by `static SEXTANT_HD void init(const Params&,
//                      State&)` when a replica starts, then read by every lane of the replica:
//                      run(const Params&, const State&, const Input&, Emit&). Lanes of a vector
//                      run at the same time on a GPU, so run sees the state read-only.
//   gain_limit may also be `static SEXTANT_HD unsigned gain_limit(const Params&)` when it depends on
//   the parameters (N-Queens: n - row).
//
// A pipeline is a type list of nodes, each node's Output the next one's Input (pipeline.hpp). A
// node that pushes more than its gain limit for one input (or, with GainKind::exact, a different
// number) is an error naming the node, never memory corruption.
#pragma once

#include <concepts>
#include <string_view>
#include <type_traits>

#include "core/device.hpp"
#include "core/host_device.hpp"

namespace sextant::pipeline {

struct NoParams {};
struct NoState {};

enum class GainKind : unsigned char { at_most, exact };

namespace detail {

template <class N>
struct ParamsOf {
  using type = NoParams;
};
template <class N>
requires requires {
  typename N::Params;
}
struct ParamsOf<N> {
  using type = typename N::Params;
};

template <class N>
struct StateOf {
  using type = NoState;
};
template <class N>
requires requires {
  typename N::State;
}
struct StateOf<N> {
  using type = typename N::State;
};

// Stands for an emitter in the concept check.
template <class T>
struct EmitterArchetype {
  SEXTANT_HD void push(const T&) {}
};

}  // namespace detail

template <class N>
using params_of = typename detail::ParamsOf<N>::type;
template <class N>
using state_of = typename detail::StateOf<N>::type;

// The node's gain limit u_i for these parameters.
template <class N>
SEXTANT_HD_INLINE unsigned gain_limit_of(const params_of<N>& params) {
  if constexpr (requires { N::gain_limit(params); })
    return static_cast<unsigned>(N::gain_limit(params));
  else
    return static_cast<unsigned>(N::gain_limit);
}

template <class N>
constexpr GainKind gain_kind_of() {
  if constexpr (requires { N::gain_kind; })
    return N::gain_kind;
  else
    return GainKind::at_most;
}

// Calls the node's body in whichever of the three forms it has.
template <class N, class Emit>
SEXTANT_HD_INLINE void run_node(const params_of<N>& params, const state_of<N>& state,
                                const typename N::Input& in, Emit& out) {
  if constexpr (requires { N::run(params, state, in, out); })
    N::run(params, state, in, out);
  else if constexpr (requires { N::run(params, in, out); })
    N::run(params, in, out);
  else
    N::run(in, out);
}

// Builds a replica's state (nothing for a node without one).
template <class N>
SEXTANT_HD_INLINE void init_state(const params_of<N>& params, state_of<N>& state) {
  if constexpr (requires { N::init(params, state); }) N::init(params, state);
}

template <class N>
concept PipelineNode = requires {
  typename N::Input;
  typename N::Output;
  { N::name } -> std::convertible_to<std::string_view>;
}
&&std::is_trivially_copyable_v<typename N::Input>&& std::is_trivially_copyable_v<typename N::Output>&&
    std::is_trivially_copyable_v<params_of<N>>&& std::is_trivially_copyable_v<state_of<N>>&&
        std::is_default_constructible_v<state_of<N>>&& requires(
            const params_of<N>& p, const state_of<N>& s, const typename N::Input& in,
            detail::EmitterArchetype<typename N::Output>& e) {
  { gain_limit_of<N>(p) } -> std::convertible_to<unsigned>;
}
&&(
    requires(const params_of<N>& p, const state_of<N>& s, const typename N::Input& in,
             detail::EmitterArchetype<typename N::Output>& e) { N::run(p, s, in, e); } ||
    requires(const params_of<N>& p, const typename N::Input& in,
             detail::EmitterArchetype<typename N::Output>& e) { N::run(p, in, e); } ||
    requires(const typename N::Input& in, detail::EmitterArchetype<typename N::Output>& e) {
      N::run(in, e);
    });

// Parameters that hold host pointers provide `Params to_device(Upload& up) const`, where
// up(const T* data, std::size_t count) returns a device copy of the array (uploaded once per GPU
// and run, the same host array once however many nodes name it). Parameters without pointers need
// nothing.
template <class P, class Upload>
P params_to_device(const P& params, Upload& up) {
  if constexpr (requires { params.to_device(up); })
    return params.to_device(up);
  else
    return params;
}

}  // namespace sextant::pipeline

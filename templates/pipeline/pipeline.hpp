// A pipeline: a type list of nodes n_1 .. n_h, each node's Output the next one's Input. The type
// holds no data; a run pairs it with the nodes' parameters (a Pack, pipeline.hpp's Params) and a
// source of inputs (run_spec.hpp). Node indices in code are 0-based; users and the plan syntax
// ("1+2,3") count from 1, as the paper does.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "templates/pipeline/hooks.hpp"
#include "templates/pipeline/pack.hpp"
#include "templates/pipeline/pipeline_policy.hpp"

namespace sextant::pipeline {

namespace detail {

template <class... N>
constexpr bool chained() {
  if constexpr (sizeof...(N) < 2) {
    return true;
  } else {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (std::is_same_v<typename type_at<I, N...>::Output, typename type_at<I + 1, N...>::Input> && ...);
    }
    (std::make_index_sequence<sizeof...(N) - 1>{});
  }
}

}  // namespace detail

template <PipelineNode... Nodes>
struct Pipeline {
  static constexpr std::size_t size = sizeof...(Nodes);
  static_assert(size >= 1, "a pipeline has at least one node");
  static_assert(size <= policy::max_nodes, "more nodes than policy::max_nodes");
  static_assert(detail::chained<Nodes...>(), "each node's Output must be the next node's Input");

  template <std::size_t I>
  using node = type_at<I, Nodes...>;
  using Input = typename node<0>::Input;
  using Output = typename node<size - 1>::Output;
  using Params = Pack<params_of<Nodes>...>;
  using States = Pack<state_of<Nodes>...>;
};

template <class P>
concept PipelineType = requires {
  { P::size } -> std::convertible_to<std::size_t>;
  typename P::Input;
  typename P::Output;
  typename P::Params;
  typename P::States;
};

// Calls f.template operator()<I>() for I = 0 .. P::size - 1.
template <PipelineType P, class F>
constexpr void for_each_node(F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (f.template operator()<I>(), ...);
  }
  (std::make_index_sequence<P::size>{});
}

// What the planner needs to know of a pipeline, without its types.
struct PipelineShape {
  std::vector<std::string> names;          // node names, n_1 first
  std::vector<std::uint32_t> gain_limits;  // u_i
  std::vector<GainKind> gain_kinds;
  std::vector<std::uint32_t> output_bytes;  // b_i: bytes of one item node i emits
  std::uint32_t input_bytes = 0;            // bytes of one source item

  std::size_t size() const noexcept { return names.size(); }
};

template <PipelineType P>
PipelineShape shape_of(const typename P::Params& params) {
  PipelineShape s;
  s.input_bytes = static_cast<std::uint32_t>(sizeof(typename P::Input));
  for_each_node<P>([&]<std::size_t I>() {
    using N = typename P::template node<I>;
    s.names.emplace_back(N::name);
    s.gain_limits.push_back(gain_limit_of<N>(params.template get<I>()));
    s.gain_kinds.push_back(gain_kind_of<N>());
    s.output_bytes.push_back(static_cast<std::uint32_t>(sizeof(typename N::Output)));
  });
  return s;
}

}  // namespace sextant::pipeline

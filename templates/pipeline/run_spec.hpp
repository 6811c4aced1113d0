// What a replica runs on: a pipeline instance (its nodes' parameters and the source of inputs),
// the replica's layout, and what it returns per chunk of the source.
#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/device.hpp"
#include "core/host_device.hpp"
#include "templates/pipeline/pipeline.hpp"
#include "templates/pipeline/profile.hpp"
#include "templates/pipeline/replica_layout.hpp"

namespace sextant::pipeline {

// The source stream: items[0 .. count), or, with items == nullptr, the indices 0 .. count - 1
// themselves (In must then be constructible from an index: positions of a database, line numbers).
template <class In>
struct Sources {
  const In* items = nullptr;
  std::uint64_t count = 0;

  SEXTANT_HD_INLINE In at(std::uint64_t i) const {
    if constexpr (std::is_constructible_v<In, std::uint64_t>) {
      if (items == nullptr) return static_cast<In>(i);
    }
    return items[i];
  }
};

// A pipeline ready to run: parameters of every node and the source.
template <PipelineType P>
struct Instance {
  typename P::Params params{};
  Sources<typename P::Input> sources{};
};

struct ReplicaOptions {
  ReplicaLayout layout;
  bool collect = true;   // keep the sink's items (false: count them only)
  bool profile = false;  // count and time per node (profile.hpp)
  bool ordered = true;   // keep each chunk's items in input order (a GPU otherwise appends them as they come)
};

// What a replica returns for one chunk of the source.
template <class Out>
struct ChunkOutput {
  std::vector<Out> items;  // in input order when the replica was asked for order
  std::uint64_t count = 0;
  RunCounters counters;
};

// The hook of the family's template: a replica runs chunks [begin, end) of the source to the
// sink. CPU replicas run one core each (cpu/pipeline/), a GPU replica set runs one per thread block
// (gpu/pipeline/).
template <class R>
concept ReplicaHook = requires(R& r, std::uint64_t begin, std::uint64_t end,
                               ChunkOutput<typename R::Output>& out) {
  typename R::Output;
  { R::name } -> std::convertible_to<std::string_view>;
  { R::device_kind } -> std::convertible_to<DeviceKind>;
  r.run(begin, end, out);
};

}  // namespace sextant::pipeline

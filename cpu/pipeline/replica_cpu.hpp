// One pipeline replica on one CPU core (paper 003's model with a core's vector of 8 or 16 lanes as
// the SIMD unit): the replica's queues are rings in one arena of the planned size, the firing policy
// is templates/pipeline/firing_policy.hpp (the GPU's too), and a group of merged nodes runs depth
// first in each lane: every push of an inner node calls the next node at once, without a queue.
// Lanes of a vector run one after the other, so items leave every queue in the order they entered
// and the sink receives a chunk's items in input order (source index, then emission order).
//
// A node that pushes more than its gain limit for one input throws Error (bad_input) naming it
// before the push is stored, so no queue is ever written past the room the policy reserved.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "templates/pipeline/firing_policy.hpp"
#include "templates/pipeline/pipeline.hpp"
#include "templates/pipeline/pipeline_policy.hpp"
#include "templates/pipeline/run_spec.hpp"

namespace sextant::pipeline::cpu {

namespace detail {

[[noreturn]] inline void gain_exceeded(std::size_t node, std::string_view name, unsigned limit) {
  throw Error(ErrorKind::bad_input, "pipeline node " + std::to_string(node + 1) + " (" + std::string(name) +
                                        ") pushed more than its gain limit of " + std::to_string(limit) +
                                        " outputs for one input");
}

[[noreturn]] inline void gain_not_exact(std::size_t node, std::string_view name, unsigned limit,
                                        unsigned pushed) {
  throw Error(ErrorKind::bad_input, "pipeline node " + std::to_string(node + 1) + " (" + std::string(name) +
                                        ") pushed " + std::to_string(pushed) +
                                        " outputs for one input; it declares exactly " +
                                        std::to_string(limit));
}

struct ArenaDeleter {
  void operator()(std::byte* p) const noexcept { ::operator delete[](p, std::align_val_t{64}); }
};

}  // namespace detail

template <PipelineType P, bool Profile = false>
class CpuReplica {
 public:
  using Input = typename P::Input;
  using Output = typename P::Output;
  static constexpr std::size_t nodes = P::size;

  CpuReplica(const Instance<P>& instance, const ReplicaOptions& options)
      : params_(instance.params), sources_(instance.sources), options_(options), layout_(options.layout) {
    if (layout_.nodes != nodes) throw Error::internal("CpuReplica: a layout for another pipeline");
    if (layout_.arena_bytes > 0)
      arena_.reset(static_cast<std::byte*>(::operator new[](layout_.arena_bytes, std::align_val_t{64})));
    for_each_node<P>([&]<std::size_t I>() {
      using N = typename P::template node<I>;
      limit_[I] = gain_limit_of<N>(params_.template get<I>());
      init_state<N>(params_.template get<I>(), states_.template get<I>());
      queue_after_[I] = I + 1 < nodes && layout_.group_of[I] != layout_.group_of[I + 1];
    });
  }

  // Runs sources [begin, end) through the pipeline; the sink's items (when collected) and the
  // counters are appended to `out`.
  void run(std::uint64_t begin, std::uint64_t end, ChunkOutput<Output>& out) {
    if (end < begin || end > sources_.count)
      throw Error::internal("CpuReplica::run: chunk outside the source");
    out_ = &out;
    if (out.counters.nodes.size() < nodes) out.counters.nodes.resize(nodes);
    counters_ = &out.counters;
    schedule_ = ReplicaSchedule{};  // an earlier chunk may have stopped part-way (an exception)
    schedule_.start_chunk(begin, end);
    ++counters_->chunks;
    int last_group = -1;
    Clock::time_point mark{};
    if constexpr (Profile) mark = Clock::now();
    while (true) {
      const Firing f = choose_firing(layout_, schedule_);
      if (f.group < 0) break;
      if (f.group != last_group) ++counters_->switches;
      last_group = f.group;
      ++counters_->firings;
      fire(layout_.group_first[f.group], f.take, mark);
    }
    for (std::size_t i = 0; i + 1 < nodes; ++i)
      if (schedule_.queue[i].count != 0)
        throw Error::internal("CpuReplica: a queue is not empty at the end of a chunk");
  }

 private:
  using Clock = std::chrono::steady_clock;

  template <std::size_t I>
  using node_output = typename P::template node<I>::Output;

  template <std::size_t I>
  node_output<I>* queue_items() {
    return std::launder(reinterpret_cast<node_output<I>*>(arena_.get() + layout_.offset[I]));
  }

  // The emitter node I's body pushes to: checks the gain limit, then passes each item on.
  template <std::size_t I>
  struct Emit {
    CpuReplica* replica;
    unsigned pushed = 0;
    void push(const node_output<I>& item) {
      if (pushed == replica->limit_[I]) {
        using N = typename P::template node<I>;
        detail::gain_exceeded(I, N::name, replica->limit_[I]);
      }
      ++pushed;
      replica->template deliver<I>(item);
    }
  };

  template <std::size_t I>
  void finish(const Emit<I>& e) {
    using N = typename P::template node<I>;
    if constexpr (gain_kind_of<N>() == GainKind::exact)
      if (e.pushed != limit_[I]) detail::gain_not_exact(I, N::name, limit_[I], e.pushed);
    if constexpr (Profile) {
      counters_->nodes[I].inputs += 1;
      counters_->nodes[I].outputs += e.pushed;
    }
  }

  // Item from node I: to the sink, into the queue after I, or straight into node I + 1 (merged).
  template <std::size_t I>
  void deliver(const node_output<I>& item) {
    if constexpr (I + 1 == nodes) {
      ++out_->count;
      if (options_.collect) out_->items.push_back(item);
    } else {
      if (queue_after_[I]) {
        QueueCursor& q = schedule_.queue[I];
        std::uint32_t at = q.head + q.count;
        if (at >= layout_.capacity[I]) at -= layout_.capacity[I];
        queue_items<I>()[at] = item;
        ++q.count;
      } else {
        using Next = typename P::template node<I + 1>;
        Emit<I + 1> e{this};
        run_node<Next>(params_.template get<I + 1>(), states_.template get<I + 1>(), item, e);
        finish<I + 1>(e);
      }
    }
  }

  // Fires the group whose first node is `first` on `take` inputs.
  void fire(std::uint32_t first, std::uint32_t take, Clock::time_point& mark) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (void)((I == first ? (fire_from<I>(take, mark), true) : false) || ...);
    }
    (std::make_index_sequence<nodes>{});
  }

  template <std::size_t I>
  typename P::template node<I>::Input input(std::uint32_t lane) {
    if constexpr (I == 0) {
      return sources_.at(schedule_.source_next + lane);
    } else {
      const QueueCursor& q = schedule_.queue[I - 1];
      std::uint32_t at = q.head + lane;
      if (at >= layout_.capacity[I - 1]) at -= layout_.capacity[I - 1];
      return queue_items<I - 1>()[at];
    }
  }

  template <std::size_t I>
  void fire_from(std::uint32_t take, Clock::time_point& mark) {
    using N = typename P::template node<I>;
    Clock::time_point start{};
    if constexpr (Profile) start = Clock::now();
    unsigned widest = 0;
    for (std::uint32_t lane = 0; lane < take; ++lane) {
      const typename N::Input x = input<I>(lane);
      Emit<I> e{this};
      run_node<N>(params_.template get<I>(), states_.template get<I>(), x, e);
      finish<I>(e);
      if constexpr (Profile) widest = std::max(widest, e.pushed);
    }
    if constexpr (I == 0) {
      schedule_.source_next += take;
      schedule_.source_left -= take;
    } else {
      QueueCursor& q = schedule_.queue[I - 1];
      q.head += take;
      if (q.head >= layout_.capacity[I - 1]) q.head -= layout_.capacity[I - 1];
      q.count -= take;
    }
    if constexpr (Profile) {
      const Clock::time_point end = Clock::now();
      NodeCounters& c = counters_->nodes[I];
      c.service += std::chrono::duration<double, std::nano>(end - start).count();
      c.overhead += std::chrono::duration<double, std::nano>(start - mark).count();
      mark = end;
      ++c.vectors;
      const std::size_t bin = std::min<std::size_t>(widest, policy::histogram_bins - 1);
      if (c.any_max_gain.size() < policy::histogram_bins) c.any_max_gain.resize(policy::histogram_bins, 0);
      ++c.any_max_gain[bin];
      if (take == layout_.width) {
        ++c.full_vectors;
        if (c.full_max_gain.size() < policy::histogram_bins)
          c.full_max_gain.resize(policy::histogram_bins, 0);
        ++c.full_max_gain[bin];
      }
    }
  }

  typename P::Params params_;
  typename P::States states_{};
  Sources<Input> sources_;
  ReplicaOptions options_;
  ReplicaLayout layout_;
  unsigned limit_[nodes] = {};
  bool queue_after_[nodes] = {};
  std::unique_ptr<std::byte[], detail::ArenaDeleter> arena_;
  ReplicaSchedule schedule_{};
  ChunkOutput<Output>* out_ = nullptr;
  RunCounters* counters_ = nullptr;
};

}  // namespace sextant::pipeline::cpu

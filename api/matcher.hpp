// The matching family's front door (paper 002; semantics in DESIGN.md, "Matching"): a Matcher
// holds subscriptions (filters owned by interfaces) and matches events against them on the CPU's
// cores, on GPUs, or on all of them, without instantiating any template.
//
//   using namespace sextant::matching;
//   Matcher matcher;                                      // every core; MatcherOptions for devices
//   matcher.add(Filter{17, 3, {{"price", Op::gt, Value::integer(10)}}});
//   MatchResults r = matcher.match(EventBatch{events});   // a batch on every selected device
//   r.interfaces_of(0);                                   // event 0's interfaces, sorted
//   matcher.match(event);                                 // one event on the calling thread
//   matcher.remove(17);
//
// Subscriptions change while events flow: add and remove may be called from any thread at any
// time. A change is validated at once (a rejected change throws Error::argument and changes
// nothing) and applied before the next batch starts, so a batch sees the state before or after a
// change, never half of it; a change never waits for a running batch. Batches (and single events)
// run one at a time per Matcher; a batch runs on every selected device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "core/device.hpp"
#include "scheduler/statistics.hpp"
#include "scheduler/topology.hpp"
#include "templates/matching/columns.hpp"
#include "templates/matching/match_results.hpp"
#include "templates/matching/model.hpp"

namespace sextant::matching {

// How the filters meet several GPUs.
enum class Placement : std::uint8_t {
  replicate,  // every GPU holds all filters; batches are cut into event ranges over every device
  partition,  // GPU k holds the k-th share of the filters; every batch goes to every GPU (tables
              // larger than one GPU's memory); the CPU cores do not match
};

struct MatcherOptions {
  DeviceSelection devices{false, {DeviceId{DeviceKind::cpu, -1}}};  // "cpu": every core
  int threads = 0;  // CPU cores that match (0 = all the selected ones)
  Placement placement = Placement::replicate;
  // Events per piece a batch is prepared and matched in (bounds the memory of a huge batch); 0 =
  // default: policy::Batches (4 pieces of at least 4096 events, at most 2^20).
  std::size_t max_batch = 0;
  // Threads besides the caller that prepare a piece the devices wait for, in parts
  // (policy::Batches::min_prepare_part events or more each); -1 = default: the machine's cores
  // less one, at most policy::Batches::prepare_helpers; 0 = the caller alone.
  int prepare_helpers = -1;
  // Prepared events in page-locked host memory when a GPU matches (a GPU copies its ranges
  // straight from them); false: the ordinary heap and a staging copy per range.
  bool page_locked_events = true;
  // Tests: a (synthetic) machine instead of the discovered one.
  std::optional<scheduler::Topology> machine;
};

namespace detail {
class MatcherState;
}

class Matcher {
 public:
  // Throws Error for devices that do not exist (a GPU in a build without CUDA: unsupported).
  explicit Matcher(const MatcherOptions& options = {});
  ~Matcher();
  Matcher(Matcher&&) noexcept;
  Matcher& operator=(Matcher&&) noexcept;

  // Adds filters (all or nothing): throws Error::argument for an invalid filter (an empty one, an
  // operator that does not take its value's type, NaN, a bad name) or an id already present.
  void add(const Filter& filter);
  void add(const FilterSet& filters);
  // Removes filters by id (all or nothing): throws Error::argument for an unknown id.
  void remove(FilterId id);
  void remove(std::span<const FilterId> ids);
  // Filters present after every accepted change.
  std::size_t size() const;
  bool contains(FilterId id) const;

  // Throughput mode: the batch on every selected device; results in batch order. Throws
  // Error::argument for a NaN or infinite value (naming the event).
  MatchResults match(const EventBatch& events, bool with_filters = false);
  // Events [begin, end) of `events` as one batch, appended to `out`: matched in pieces
  // (MatcherOptions::max_batch), the next piece prepared while the devices match one. A batch that
  // throws leaves `out` as it was.
  void match(const EventBatch& events, std::size_t begin, std::size_t end, bool with_filters,
             MatchResults& out);
  // Latency mode: one event at a time on the calling thread (a CPU core, or the GPU when only
  // GPUs are selected), appended to `out`.
  void match_one(const EventBatch& events, std::size_t index, bool with_filters, MatchResults& out);
  MatchResults match(const Event& event, bool with_filters = false);

  // "cpu: 16 workers (avx512, avx2, scalar); gpu0 NVIDIA H100; replicated" and the like.
  std::string describe() const;
  // Per-device work of the batches so far (scheduler::report formats it).
  scheduler::Statistics statistics() const;
  // Filters, constraints and bytes of the tables (after pending changes are applied).
  std::size_t constraints() const;
  std::size_t table_bytes() const;

 private:
  std::unique_ptr<detail::MatcherState> state_;
};

}  // namespace sextant::matching

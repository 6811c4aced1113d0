#include "api/matcher.hpp"

#include <algorithm>
#include <atomic>
#include <memory_resource>
#include <mutex>
#include <thread>
#include <unordered_set>
#include <utility>
#include <vector>

#include "api/backends.hpp"
#include "api/machine.hpp"
#include "api/matcher_engine.hpp"
#include "core/background_task.hpp"
#include "core/error.hpp"
#include "core/parallel_parts.hpp"
#include "templates/matching/matching_policy.hpp"

namespace sextant::matching {

namespace detail {

// Two locks: `changes` guards the accepted-but-not-applied changes and the ids they leave live
// (taken briefly by add/remove and by the batch that applies them); `tables` guards the tables,
// the engine and the batch scratch (held by a batch; add/remove only try it, to apply at once
// when no batch runs).
class MatcherState {
 public:
  explicit MatcherState(const MatcherOptions& options)
      : options_(checked(options)),
        engine_(backends::make_match_engine(
            options.machine ? *options.machine : api::machine_for(options.devices), options)),
        tables_(engine_->shards()) {
    for (std::uint32_t s = 0; s < tables_.shard_count(); ++s)
      tables_.shard(s).log_changes(engine_->copies_tables());
  }

  void add(FilterSet&& set) {
    set.check("filters");
    {
      std::lock_guard lock(changes_mutex_);
      for (const FilterId id : set.ids)
        if (live_.contains(id))
          throw Error::argument("filter " + std::to_string(id), "(add)", "an id not in the matcher",
                                "a duplicate filter id");
      live_.insert(set.ids.begin(), set.ids.end());
      pending_count_.fetch_add(set.size(), std::memory_order_relaxed);
      pending_.push_back(Change{std::move(set), {}});
      has_pending_.store(true, std::memory_order_release);
    }
    try_apply();
  }

  void remove(std::span<const FilterId> ids) {
    {
      std::lock_guard lock(changes_mutex_);
      std::unordered_set<FilterId> seen;
      for (const FilterId id : ids) {
        if (!live_.contains(id))
          throw Error::argument("filter " + std::to_string(id), "(remove)",
                                "the id of a filter in the matcher", "an unknown filter id");
        if (!seen.insert(id).second)
          throw Error::argument("filter " + std::to_string(id), "(remove)", "each id once",
                                "an id removed twice");
      }
      for (const FilterId id : ids) live_.erase(id);
      pending_count_.fetch_add(ids.size(), std::memory_order_relaxed);
      pending_.push_back(Change{{}, std::vector<FilterId>(ids.begin(), ids.end())});
      has_pending_.store(true, std::memory_order_release);
    }
    try_apply();
  }

  std::size_t size() const {
    std::lock_guard lock(changes_mutex_);
    return live_.size();
  }
  bool contains(FilterId id) const {
    std::lock_guard lock(changes_mutex_);
    return live_.contains(id);
  }

  void match(const EventBatch& events, std::size_t first, std::size_t last, bool with_filters,
             MatchResults& out) {
    if (first > last || last > events.size())
      throw Error::argument("events", std::to_string(first) + " .. " + std::to_string(last),
                            "a range within the batch's " + std::to_string(events.size()) + " events");
    std::lock_guard lock(tables_mutex_);
    apply_locked();
    const ResultsMark mark(out);
    if (out.events.empty()) out.has_filters = with_filters;
    const std::size_t piece = piece_size(last - first);
    try {
      // Piece k + 1 is prepared in the background while the devices match piece k: the
      // preparation is the caller's share of a batch. The first piece, which every device waits
      // for, is prepared in parts on the helper threads; so are the others when a GPU matches
      // (on one thread, the next piece would be late, and the thread would share a worker's core
      // for the whole piece instead of briefly).
      prepared_[0].prepare(events, first, std::min(last, first + piece), tables_, &prepare_threads_);
      ParallelParts* const behind = engine_->matches_on_gpus() ? &prepare_threads_ : nullptr;
      for (std::size_t begin = first, k = 0; begin < last; begin += piece, ++k) {
        const std::size_t next = begin + piece;
        if (next < last)
          preparer_.start([this, &events, next, end = std::min(last, next + piece), k, behind] {
            prepared_[(k + 1) % 2].prepare(events, next, end, tables_, behind);
          });
        engine_->match(tables_, prepared_[k % 2], with_filters, out);
        if (next < last) preparer_.wait();
      }
    } catch (...) {
      preparer_.finish();
      mark.roll_back(out);
      throw;
    }
  }

  void match_one(const EventBatch& events, std::size_t index, bool with_filters, MatchResults& out) {
    if (index >= events.size())
      throw Error::argument("event index", std::to_string(index),
                            "0 .. " + std::to_string(events.size()) + " - 1");
    std::lock_guard lock(tables_mutex_);
    apply_locked();
    const ResultsMark mark(out);
    if (out.events.empty()) out.has_filters = with_filters;
    try {
      prepared_[0].prepare(events, index, index + 1, tables_);
      engine_->match_here(tables_, prepared_[0], with_filters, out);
    } catch (...) {
      mark.roll_back(out);
      throw;
    }
  }

  std::string describe() const { return engine_->describe(); }
  scheduler::Statistics statistics() const { return engine_->statistics(); }
  std::size_t constraints() {
    std::lock_guard lock(tables_mutex_);
    apply_locked();
    return tables_.constraints();
  }
  std::size_t table_bytes() {
    std::lock_guard lock(tables_mutex_);
    apply_locked();
    return tables_.bytes();
  }

 private:
  static const MatcherOptions& checked(const MatcherOptions& options) {
    if (options.prepare_helpers < -1 || options.prepare_helpers > max_prepare_helpers)
      throw Error::argument("prepare_helpers", std::to_string(options.prepare_helpers),
                            "-1 (default) or 0 .. " + std::to_string(max_prepare_helpers), "out of range");
    return options;
  }
  static constexpr int max_prepare_helpers = 256;

  // The sizes of `out` before a batch: a batch that throws leaves nothing of itself behind.
  struct ResultsMark {
    explicit ResultsMark(const MatchResults& out)
        : events(out.events.size()),
          interface_offsets(out.interface_offsets.size()),
          interfaces(out.interfaces.size()),
          filter_offsets(out.filter_offsets.size()),
          filters(out.filters.size()),
          has_filters(out.has_filters) {}
    void roll_back(MatchResults& out) const {
      out.events.resize(events);
      out.interface_offsets.resize(interface_offsets);
      out.interfaces.resize(interfaces);
      out.filter_offsets.resize(filter_offsets);
      out.filters.resize(filters);
      if (events == 0) out.has_filters = has_filters;
    }
    std::size_t events, interface_offsets, interfaces, filter_offsets, filters;
    bool has_filters;
  };

  // Events per piece of a batch of n: a single piece up to twice the smallest overlapped piece,
  // else policy::Batches::overlap_pieces pieces of at least that size, at most max_batch events.
  std::size_t piece_size(std::size_t n) const {
    const std::size_t most = options_.max_batch > 0 ? options_.max_batch : policy::Batches::max_piece;
    if (n < 2 * policy::Batches::min_overlap_piece) return std::min(std::max<std::size_t>(n, 1), most);
    const std::size_t even = (n + policy::Batches::overlap_pieces - 1) / policy::Batches::overlap_pieces;
    return std::min(std::max(even, policy::Batches::min_overlap_piece), most);
  }

  struct Change {
    FilterSet add;
    std::vector<FilterId> remove;
  };

  // Applies the accepted changes now unless a batch runs; when more than
  // policy::max_pending_changes wait, waits for the batch (changes cannot queue without bound when
  // they arrive faster than they are applied).
  void try_apply() {
    std::unique_lock lock(tables_mutex_, std::try_to_lock);
    if (!lock.owns_lock() && pending_count_.load(std::memory_order_relaxed) > policy::max_pending_changes)
      lock.lock();
    if (lock.owns_lock()) apply_locked();
  }

  // Applies every accepted change in order (they were validated against the ids they leave live,
  // so the tables accept them).
  void apply_locked() {
    if (!has_pending_.load(std::memory_order_acquire)) return;
    std::vector<Change> changes;
    {
      std::lock_guard lock(changes_mutex_);
      changes.swap(pending_);
      has_pending_.store(false, std::memory_order_relaxed);
      pending_count_.store(0, std::memory_order_relaxed);
    }
    for (const Change& c : changes) {
      if (c.remove.empty())
        tables_.add(c.add);
      else
        tables_.remove(c.remove);
    }
  }

  MatcherOptions options_;
  std::unique_ptr<MatchEngine> engine_;

  mutable std::mutex changes_mutex_;
  std::vector<Change> pending_;
  std::unordered_set<FilterId> live_;
  std::atomic<bool> has_pending_{false};
  std::atomic<std::size_t> pending_count_{0};  // filters added or removed by the pending changes

  std::mutex tables_mutex_;
  MatchTables tables_;
  // The piece the devices match and the next one.
  PreparedEvents prepared_[2]{PreparedEvents(event_memory()), PreparedEvents(event_memory())};
  ParallelParts prepare_threads_{helper_threads(options_)};
  BackgroundTask preparer_;  // last: waits for a running preparation before the rest goes

  std::pmr::memory_resource* event_memory() const {
    return options_.page_locked_events ? engine_->event_memory() : std::pmr::get_default_resource();
  }

  static int helper_threads(const MatcherOptions& options) {
    if (options.prepare_helpers >= 0) return options.prepare_helpers;
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    return std::clamp(cores - 1, 0, policy::Batches::prepare_helpers);
  }
};

}  // namespace detail

Matcher::Matcher(const MatcherOptions& options) : state_(std::make_unique<detail::MatcherState>(options)) {}
Matcher::~Matcher() = default;
Matcher::Matcher(Matcher&&) noexcept = default;
Matcher& Matcher::operator=(Matcher&&) noexcept = default;

void Matcher::add(const Filter& filter) {
  FilterSet set;
  set.add(filter);
  state_->add(std::move(set));
}
void Matcher::add(const FilterSet& filters) {
  state_->add(FilterSet(filters));
}
void Matcher::remove(FilterId id) {
  state_->remove(std::span<const FilterId>(&id, 1));
}
void Matcher::remove(std::span<const FilterId> ids) {
  state_->remove(ids);
}
std::size_t Matcher::size() const {
  return state_->size();
}
bool Matcher::contains(FilterId id) const {
  return state_->contains(id);
}
MatchResults Matcher::match(const EventBatch& events, bool with_filters) {
  MatchResults out;
  out.has_filters = with_filters;
  state_->match(events, 0, events.size(), with_filters, out);
  return out;
}
void Matcher::match(const EventBatch& events, std::size_t begin, std::size_t end, bool with_filters,
                    MatchResults& out) {
  state_->match(events, begin, end, with_filters, out);
}
void Matcher::match_one(const EventBatch& events, std::size_t index, bool with_filters, MatchResults& out) {
  state_->match_one(events, index, with_filters, out);
}
MatchResults Matcher::match(const Event& event, bool with_filters) {
  EventBatch batch;
  batch.add(event);
  MatchResults out;
  state_->match_one(batch, 0, with_filters, out);
  return out;
}
std::string Matcher::describe() const {
  return state_->describe();
}
scheduler::Statistics Matcher::statistics() const {
  return state_->statistics();
}
std::size_t Matcher::constraints() const {
  return state_->constraints();
}
std::size_t Matcher::table_bytes() const {
  return state_->table_bytes();
}

}  // namespace sextant::matching

#include "api/matcher.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_set>
#include <utility>
#include <vector>

#include "api/backends.hpp"
#include "api/machine.hpp"
#include "api/matcher_engine.hpp"
#include "core/error.hpp"
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
      : options_(options),
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
    if (out.events.empty()) out.has_filters = with_filters;
    const std::size_t piece = options_.max_batch > 0 ? options_.max_batch : std::size_t{1} << 20;
    for (std::size_t begin = first; begin < last; begin += piece) {
      const std::size_t end = std::min(last, begin + piece);
      prepared_.prepare(events, begin, end, tables_);
      engine_->match(tables_, prepared_, with_filters, out);
    }
  }

  void match_one(const EventBatch& events, std::size_t index, bool with_filters, MatchResults& out) {
    if (index >= events.size())
      throw Error::argument("event index", std::to_string(index),
                            "0 .. " + std::to_string(events.size()) + " - 1");
    std::lock_guard lock(tables_mutex_);
    apply_locked();
    if (out.events.empty()) out.has_filters = with_filters;
    prepared_.prepare(events, index, index + 1, tables_);
    engine_->match_here(tables_, prepared_, with_filters, out);
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
  PreparedEvents prepared_;
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

#include "scheduler/job.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <thread>
#include <utility>

#include "core/error.hpp"
#include "scheduler/wait.hpp"

namespace sextant::scheduler::detail {

namespace {

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

std::string describe(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "unknown exception";
  }
}

enum Eligibility { both = 0, cpu_only = 1, gpu_only = 2 };

Eligibility eligibility(const Codelet& c) {
  const bool cpu = c.can_execute(DeviceKind::cpu);
  if (cpu && c.can_execute(DeviceKind::gpu)) return both;
  return cpu ? cpu_only : gpu_only;
}

bool eligible(Eligibility e, DeviceKind kind) {
  return e == both || (e == cpu_only) == (kind == DeviceKind::cpu);
}

}  // namespace

Job::Job(std::span<const WorkerInfo> workers, std::unique_ptr<PolicyBase> policy, RunOptions options,
         const FaultInjection& faults, std::chrono::nanoseconds idle_spin)
    : workers_(workers),
      policy_(std::move(policy)),
      options_(options),
      faults_(faults),
      inject_faults_(!faults.empty() && options.record),
      idle_spin_(idle_spin),
      slots_(std::make_unique<WorkerSlot[]>(workers.size())) {
  for (const WorkerInfo& w : workers) {
    WorkerStats& s = slots_[static_cast<std::size_t>(w.id)].stats;
    s.worker = w.id;
    s.device = w.device;
  }
}

void Job::set_batch(std::vector<Task> tasks) {
  kind_ = Kind::batch;
  tasks_ = std::move(tasks);
  unfinished_.store(tasks_.size(), std::memory_order_relaxed);
  const bool one_codelet = std::all_of(tasks_.begin(), tasks_.end(),
                                       [&](const Task& t) { return t.codelet == tasks_.front().codelet; });
  if (!tasks_.empty() && one_codelet) rate_key_ = tasks_.front().codelet->name;
}

void Job::set_range(std::size_t size, const Codelet& codelet) {
  kind_ = Kind::range;
  range_size_ = size;
  codelet_ = &codelet;
  unfinished_.store(size, std::memory_order_relaxed);
  rate_key_ = codelet.name;
}

const Codelet* Job::single_codelet() const noexcept {
  if (kind_ == Kind::range) return codelet_;
  return rate_key_.empty() ? nullptr : tasks_.front().codelet;
}

void Job::prepare(std::span<const double> remembered,
                  const std::vector<std::vector<double>>& remembered_variants,
                  std::span<const ChunkCostFit> fits, std::uint64_t generation) {
  generation_ = generation;
  remembered_variants_ = remembered_variants;
  if (kind_ == Kind::range && codelet_->variants.size() > 1) {
    std::vector<DeviceId> devices;
    for (const WorkerInfo& w : workers_) {
      auto it = std::find(devices.begin(), devices.end(), w.device);
      if (it == devices.end()) it = devices.insert(devices.end(), w.device);
      device_index_.push_back(static_cast<int>(it - devices.begin()));
    }
    pooled_ = std::make_unique<PooledTally[]>(devices.size() * codelet_->variants.size());
  }
  bool any_cpu = false;
  bool any_gpu = false;
  if (kind_ == Kind::batch) {
    for (const Task& t : tasks_) {
      any_cpu = any_cpu || t.codelet->can_execute(DeviceKind::cpu);
      any_gpu = any_gpu || t.codelet->can_execute(DeviceKind::gpu);
    }
  } else {
    any_cpu = codelet_->can_execute(DeviceKind::cpu);
    any_gpu = codelet_->can_execute(DeviceKind::gpu);
  }
  for (const WorkerInfo& w : workers_) {
    WorkerSlot& slot = slots_[static_cast<std::size_t>(w.id)];
    slot.participates = w.kind == DeviceKind::gpu ? any_gpu : any_cpu;
    slot.live.store(slot.participates, std::memory_order_relaxed);
    if (!slot.participates) continue;
    ++participants_;
    (w.kind == DeviceKind::gpu ? live_gpu_ : live_cpu_).fetch_add(1, std::memory_order_relaxed);
    const auto id = static_cast<std::size_t>(w.id);
    if (id < remembered.size()) slot.rate.store(remembered[id], std::memory_order_relaxed);
    if (id < fits.size()) {
      slot.fit = fits[id];
      publish_cost(slot);
    }
    if (kind_ == Kind::range && w.kind == DeviceKind::gpu && codelet_->gpu_bytes_per_item > 0 &&
        w.gpu_memory_bytes > 0)
      slot.gpu_item_limit = std::max<std::size_t>(w.gpu_memory_bytes / 2 / codelet_->gpu_bytes_per_item, 1);
  }
  const std::vector<double> weights = initial_weights(remembered);
  if (kind_ == Kind::batch) {
    prepare_batch(weights);
  } else {
    prepare_range(weights);
  }
  start_ = Clock::now();
  started_ = true;
  if (policy_->uses_rates()) refresh_estimate(start_);
}

std::vector<double> Job::initial_weights(std::span<const double> remembered) const {
  double sums[2] = {0, 0};
  int counts[2] = {0, 0};
  const auto at = [&](std::size_t id) { return id < remembered.size() ? remembered[id] : 0.0; };
  for (const WorkerInfo& w : workers_) {
    const double r = at(static_cast<std::size_t>(w.id));
    if (!slots_[static_cast<std::size_t>(w.id)].participates || r <= 0) continue;
    const int k = w.kind == DeviceKind::gpu ? 1 : 0;
    sums[k] += r;
    ++counts[k];
  }
  WeightRequest request;
  request.mean_cpu_rate = counts[0] > 0 ? sums[0] / counts[0] : 0;
  request.mean_gpu_rate = counts[1] > 0 ? sums[1] / counts[1] : 0;
  std::vector<double> weights(workers_.size(), 0.0);
  double total = 0;
  for (const WorkerInfo& w : workers_) {
    const auto id = static_cast<std::size_t>(w.id);
    if (!slots_[id].participates) continue;
    request.kind = w.kind;
    request.rate = at(id);
    const double weight = policy_->initial_weight(request);
    weights[id] = std::isfinite(weight) && weight > 0 ? weight : 0.0;
    total += weights[id];
  }
  if (!(total > 0))  // a policy that gives nobody a share: equal shares
    for (const WorkerInfo& w : workers_)
      weights[static_cast<std::size_t>(w.id)] =
          slots_[static_cast<std::size_t>(w.id)].participates ? 1.0 : 0.0;
  return weights;
}

void Job::prepare_batch(std::span<const double> weights) {
  // Tasks are dealt in contiguous blocks, weighted by size, to the workers that can run them.
  // Tasks every kind can run sit at the top of a deque (where thieves take), kind-only tasks at
  // the bottom (which the owner pops first), so a thief is rarely blocked by a task it cannot run.
  std::vector<std::uint64_t> lists[3];
  for (std::uint64_t i = 0; i < tasks_.size(); ++i) lists[eligibility(*tasks_[i].codelet)].push_back(i);
  std::vector<std::vector<std::uint64_t>> shared(workers_.size());
  std::vector<std::vector<std::uint64_t>> own(workers_.size());
  for (int e = both; e <= gpu_only; ++e) {
    const std::vector<std::uint64_t>& list = lists[e];
    if (list.empty()) continue;
    std::vector<std::size_t> eligible_workers;
    std::vector<double> share;
    double weight_sum = 0;
    for (const WorkerInfo& w : workers_) {
      const auto id = static_cast<std::size_t>(w.id);
      if (slots_[id].participates && eligible(static_cast<Eligibility>(e), w.kind)) {
        eligible_workers.push_back(id);
        share.push_back(weights[id]);
        weight_sum += weights[id];
      }
    }
    if (eligible_workers.empty()) throw Error::internal("scheduler: a task has no worker that can run it");
    if (!(weight_sum > 0)) {  // the policy gave this kind nothing: equal shares
      std::fill(share.begin(), share.end(), 1.0);
      weight_sum = static_cast<double>(share.size());
    }
    double total_size = 0;
    for (const std::uint64_t t : list)
      total_size += static_cast<double>(std::max<std::size_t>(tasks_[t].size, 1));
    auto& target = e == both ? shared : own;
    std::size_t k = 0;
    double boundary = total_size * share[0] / weight_sum;
    double position = 0;
    for (const std::uint64_t t : list) {
      const double size = static_cast<double>(std::max<std::size_t>(tasks_[t].size, 1));
      const double middle = position + size / 2;
      while (middle > boundary && k + 1 < eligible_workers.size())
        boundary += total_size * share[++k] / weight_sum;
      target[eligible_workers[k]].push_back(t);
      position += size;
    }
  }
  for (std::size_t id = 0; id < workers_.size(); ++id) {
    ChaseLevDeque<std::uint64_t>& deque = slots_[id].tasks;
    deque.reserve(shared[id].size() + own[id].size());
    // Pushed in reverse: the owner pops its block in ascending order.
    for (auto it = shared[id].rbegin(); it != shared[id].rend(); ++it) deque.push(*it);
    for (auto it = own[id].rbegin(); it != own[id].rend(); ++it) deque.push(*it);
  }
}

void Job::prepare_range(std::span<const double> weights) {
  if (policy_->shared_pool() && range_size_ > 0) {  // every chunk from the front of one shared range
    overflow_ranges_.push_back({0, range_size_});
    overflow_size_.store(range_size_, std::memory_order_release);
    return;
  }
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  double cumulative = 0;
  std::size_t begin = 0;
  std::size_t last = 0;
  for (std::size_t id = 0; id < workers_.size(); ++id)
    if (weights[id] > 0) last = id;
  for (std::size_t id = 0; id < workers_.size(); ++id) {
    if (weights[id] <= 0) continue;
    cumulative += weights[id];
    const auto end = id == last
                         ? range_size_
                         : std::min(range_size_, static_cast<std::size_t>(std::llround(
                                                     static_cast<double>(range_size_) * cumulative / total)));
    slots_[id].range.reset({begin, std::max(begin, end)});
    begin = std::max(begin, end);
  }
}

bool Job::join() noexcept {
  std::uint64_t s = presence_.load(std::memory_order_acquire);
  do {
    if (s & closed_bit) return false;
  } while (!presence_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel, std::memory_order_acquire));
  return true;
}

bool Job::leave() noexcept {
  // One atomic step for "left" and "inside": of concurrent leavers, exactly the last sees both.
  const std::uint64_t now = presence_.fetch_add(left_one - 1, std::memory_order_acq_rel) + left_one - 1;
  if ((now & inside_mask) != 0) return false;
  const bool everyone_left = (now >> 32) == workers_.size();
  // Nobody is inside, so nobody changes unfinished_; a worker joining now makes the close fail, and
  // the close falls to it when it leaves.
  if (!everyone_left && unfinished_.load(std::memory_order_acquire) != 0 && !halted()) return false;
  std::uint64_t expected = now;
  return presence_.compare_exchange_strong(expected, now | closed_bit, std::memory_order_acq_rel);
}

void Job::work(const WorkerInfo& me, std::span<const int> victims, CounterSet& counters) {
  WorkerSlot& slot = slots_[static_cast<std::size_t>(me.id)];
  if (!slot.participates) return;
  if (counters.active()) counters.restart();
  const WorkerContext ctx{&me, cancel_.get_token()};
  slot.mark = Clock::now();
  while (!halted() && slot.live.load(std::memory_order_relaxed)) {
    if (unfinished_.load(std::memory_order_acquire) == 0) break;
    const std::uint32_t seen = epoch_.load(std::memory_order_acquire);
    bool progressed = false;
    try {
      progressed = kind_ == Kind::batch ? step_batch(me, victims, ctx) : step_range(me, victims, ctx);
    } catch (...) {  // a policy or the engine itself threw (e.g. bad_alloc): stop the run, report it
      std::lock_guard lock(mutex_);
      abort_locked(std::current_exception());
    }
    if (progressed) continue;
    report_finished(slot);
    if (unfinished_.load(std::memory_order_acquire) == 0 || halted()) break;
    if (std::exchange(slot.declined, false))
      std::this_thread::sleep_for(decline_poll);
    else
      spin_then_wait(epoch_, seen, me.kind == DeviceKind::cpu ? idle_spin_ : Clock::duration::zero());
    slot.mark = Clock::now();
  }
  report_finished(slot);
  if (counters.active()) slot.stats.counters = counters.read();
}

bool Job::step_batch(const WorkerInfo& me, std::span<const int> victims, const WorkerContext& ctx) {
  WorkerSlot& slot = slots_[static_cast<std::size_t>(me.id)];
  std::uint64_t index = 0;
  if (const auto own = slot.tasks.pop()) {
    index = *own;
  } else {
    report_finished(slot);
    if (!take_overflow_task(me, index) && !steal_task(me, victims, index)) return false;
  }
  const Task& task = tasks_[index];
  if (execute(me, *task.codelet, Chunk{task.id, 0, task.size}, ctx, index)) finished(slot, 1);
  return true;
}

bool Job::steal_task(const WorkerInfo& me, std::span<const int> victims, std::uint64_t& task) {
  using Steal = ChaseLevDeque<std::uint64_t>::Steal;
  const auto runnable = [&](std::uint64_t t) { return tasks_[t].codelet->can_execute(me.kind); };
  for (const int v : victims) {
    WorkerSlot& victim = slots_[static_cast<std::size_t>(v)];
    if (!victim.participates) continue;
    auto stolen = victim.tasks.steal_if(runnable);
    while (stolen.status == Steal::lost_race) stolen = victim.tasks.steal_if(runnable);
    if (stolen.status == Steal::taken) {
      task = stolen.value;
      ++slots_[static_cast<std::size_t>(me.id)].stats.steals;
      return true;
    }
  }
  return false;
}

bool Job::step_range(const WorkerInfo& me, std::span<const int> victims, const WorkerContext& ctx) {
  WorkerSlot& slot = slots_[static_cast<std::size_t>(me.id)];
  ItemRange chunk = slot.range.take_front([&](std::size_t remaining) { return chunk_size(me, remaining); });
  if (chunk.empty()) {
    report_finished(slot);
    chunk = take_overflow_range(me);
  }
  if (chunk.empty()) {
    for (const int v : victims) {
      WorkerSlot& victim = slots_[static_cast<std::size_t>(v)];
      if (!victim.participates || victim.range.remaining() == 0) continue;
      const StealRequest base{me.kind, workers_[static_cast<std::size_t>(v)].kind, 0,
                              slot.rate.load(std::memory_order_relaxed),
                              victim.rate.load(std::memory_order_relaxed)};
      const ItemRange stolen = victim.range.take_back([&](std::size_t remaining) {
        StealRequest request = base;
        request.victim_remaining = remaining;
        return policy_->steal(request);
      });
      if (stolen.empty()) continue;
      ++slot.stats.steals;
      slot.range.reset(stolen);
      wake_all();  // the stolen range is itself stealable now
      return true;
    }
    return false;
  }
  if (execute(me, *codelet_, Chunk{options_.id, chunk.begin, chunk.end}, ctx, 0))
    finished(slot, chunk.size());
  return true;
}

std::size_t Job::chunk_size(const WorkerInfo& me, std::size_t own_remaining) {
  WorkerSlot& slot = slots_[static_cast<std::size_t>(me.id)];
  ChunkRequest request;
  request.kind = me.kind;
  request.range_size = range_size_;
  request.own_remaining = own_remaining;
  request.participants = participants_;
  request.rate = slot.rate.load(std::memory_order_relaxed);
  if (policy_->uses_rates()) {
    refresh_estimate(slot.mark);
    request.unclaimed = estimate_.unclaimed.load(std::memory_order_relaxed);
    request.total_rate = estimate_.total_rate.load(std::memory_order_relaxed);
    request.unmeasured = estimate_.unmeasured.load(std::memory_order_relaxed);
    request.elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    request.fixed_seconds = slot.fixed_seconds.load(std::memory_order_relaxed);
    request.marginal_rate = slot.marginal_rate.load(std::memory_order_relaxed);
    request.previous_chunk = slot.previous_chunk;
    request.finish_seconds = estimate_.finish_seconds.load(std::memory_order_relaxed);
    request.unfitted = estimate_.unfitted.load(std::memory_order_relaxed);
  }
  std::size_t n = policy_->chunk(request);
  if (n == 0) return 0;
  if (slot.gpu_item_limit > 0) n = std::min(n, slot.gpu_item_limit);
  // A trial of a variant is a small chunk: a slow variant costs little before it is dropped.
  if (trying_variants(slot, me)) n = std::max<std::size_t>(1, n / variant_trial_divisor);
  return n;
}

void Job::refresh_estimate(Clock::time_point now) noexcept {
  Clock::rep at = estimate_.at.load(std::memory_order_relaxed);
  const Clock::rep stamp = now.time_since_epoch().count();
  if (at != 0 && stamp - at < estimate_period.count()) return;
  if (!estimate_.at.compare_exchange_strong(at, stamp, std::memory_order_relaxed))
    return;  // another refreshes
  double sum[2] = {0, 0};
  int known[2] = {0, 0};
  int unknown[2] = {0, 0};
  std::size_t unclaimed = overflow_size_.load(std::memory_order_relaxed);
  for (const WorkerInfo& w : workers_) {
    const WorkerSlot& slot = slots_[static_cast<std::size_t>(w.id)];
    if (!slot.participates) continue;
    unclaimed += slot.range.remaining();
    if (!slot.live.load(std::memory_order_relaxed)) continue;
    const int k = w.kind == DeviceKind::gpu ? 1 : 0;
    const double r = slot.rate.load(std::memory_order_relaxed);
    if (r > 0) {
      sum[k] += r;
      ++known[k];
    } else {
      ++unknown[k];
    }
  }
  double total = 0;
  if (known[0] + known[1] > 0) {
    const double overall = (sum[0] + sum[1]) / (known[0] + known[1]);
    total = sum[0] + sum[1];
    for (int k = 0; k < 2; ++k) total += unknown[k] * (known[k] > 0 ? sum[k] / known[k] : overall);
  }
  estimate_.total_rate.store(total, std::memory_order_relaxed);
  estimate_.unmeasured.store(unknown[0] + unknown[1], std::memory_order_relaxed);
  estimate_.unclaimed.store(unclaimed, std::memory_order_relaxed);
  if (policy_->shared_pool()) {
    int unfitted = 0;
    estimate_.finish_seconds.store(team_finish_seconds_now(static_cast<double>(unclaimed), unfitted),
                                   std::memory_order_relaxed);
    estimate_.unfitted.store(unfitted, std::memory_order_relaxed);
  }
}

double Job::team_finish_seconds_now(double unclaimed, int& unfitted) const noexcept {
  // Live participants at their fitted cost, else at no fixed cost and their items/s so far, else at
  // their kind's mean of those; a worker in the middle of a chunk starts when it should end.
  unfitted = 0;
  try {
    const Clock::rep now = Clock::now().time_since_epoch().count();
    std::vector<ChunkCost> team;
    std::vector<int> unknown;
    ChunkCost sums[2];
    int known[2] = {0, 0};
    for (const WorkerInfo& w : workers_) {
      const WorkerSlot& slot = slots_[static_cast<std::size_t>(w.id)];
      if (!slot.participates || !slot.live.load(std::memory_order_relaxed)) continue;
      const int k = w.kind == DeviceKind::gpu ? 1 : 0;
      ChunkCost c = cost_of(w.kind, slot);
      if (k == 1 && !(slot.marginal_rate.load(std::memory_order_relaxed) > 0)) ++unfitted;
      if (!(c.rate > 0)) {
        unfitted += 1 - k;
        unknown.push_back(k);
        continue;
      }
      sums[k].fixed_seconds += c.fixed_seconds;
      sums[k].rate += c.rate;
      ++known[k];
      const Clock::rep busy = slot.busy_until.load(std::memory_order_relaxed) - now;
      if (busy > 0) c.fixed_seconds += seconds(Clock::duration(busy));
      team.push_back(c);
    }
    for (const int k : unknown)
      if (known[k] > 0) team.push_back({sums[k].fixed_seconds / known[k], sums[k].rate / known[k]});
    return team_finish_seconds(team, unclaimed);
  } catch (...) {  // no memory for the estimate: the policy goes on without it
    return 0;
  }
}

bool Job::take_overflow_task(const WorkerInfo& me, std::uint64_t& task) {
  if (overflow_size_.load(std::memory_order_acquire) == 0) return false;
  std::lock_guard lock(mutex_);
  for (auto it = overflow_tasks_.begin(); it != overflow_tasks_.end(); ++it) {
    if (!tasks_[*it].codelet->can_execute(me.kind)) continue;
    task = *it;
    overflow_tasks_.erase(it);
    overflow_size_.fetch_sub(1, std::memory_order_relaxed);
    return true;
  }
  return false;
}

ItemRange Job::take_overflow_range(const WorkerInfo& me) {
  if (overflow_size_.load(std::memory_order_acquire) == 0) return {};
  std::lock_guard lock(mutex_);
  if (overflow_ranges_.empty()) return {};
  ItemRange& front = overflow_ranges_.front();
  const std::size_t wanted = chunk_size(me, front.size());
  WorkerSlot& slot = slots_[static_cast<std::size_t>(me.id)];
  if (wanted == 0 && policy_->shared_pool()) {
    slot.declined = true;
    return {};
  }
  const std::size_t n = std::clamp<std::size_t>(wanted, 1, front.size());
  slot.previous_chunk = n;
  if (policy_->shared_pool()) {
    const ChunkCost cost = cost_of(me.kind, slot);
    const double expected = cost.rate > 0 ? cost.seconds(static_cast<double>(n)) : 0.0;
    slot.busy_until.store(expected > 0 ? (Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                             std::chrono::duration<double>(expected)))
                                             .time_since_epoch()
                                             .count()
                                       : 0,
                          std::memory_order_relaxed);
  }
  const ItemRange out{front.begin, front.begin + n};
  front.begin += n;
  if (front.empty()) overflow_ranges_.pop_front();
  overflow_size_.fetch_sub(n, std::memory_order_relaxed);
  return out;
}

bool Job::trying_variants(const WorkerSlot& slot, const WorkerInfo& me) const {
  if (kind_ != Kind::range || codelet_->variants.size() < 2) return false;
  const auto state = std::find_if(slot.tallies.begin(), slot.tallies.end(),
                                  [&](const CodeletTallies& t) { return t.codelet == codelet_; });
  int runnable = 0;
  bool untried = false;
  bool only_fallbacks = true;
  for (const Variant& v : codelet_->variants)
    only_fallbacks = only_fallbacks && !(v.runs_on(me) && !v.fallback);
  for (std::size_t v = 0; v < codelet_->variants.size(); ++v) {
    if (!codelet_->variants[v].runs_on(me) || (codelet_->variants[v].fallback && !only_fallbacks)) continue;
    ++runnable;
    const bool done = state != slot.tallies.end() &&
                      (state->variants[v].measured() || state->variants[v].tasks >= variant_trials);
    const bool remembered = v < remembered_variants_.size() &&
                            static_cast<std::size_t>(me.id) < remembered_variants_[v].size() &&
                            remembered_variants_[v][static_cast<std::size_t>(me.id)] > 0;
    untried = untried || (!done && !remembered);
  }
  return runnable > 1 && untried;
}

std::pair<const Variant*, VariantTally*> Job::pick_variant(WorkerSlot& slot, const WorkerInfo& me,
                                                           const Codelet& codelet) {
  auto state = std::find_if(slot.tallies.begin(), slot.tallies.end(),
                            [&](const CodeletTallies& t) { return t.codelet == &codelet; });
  if (state == slot.tallies.end()) {
    CodeletTallies fresh{&codelet, std::vector<VariantTally>(codelet.variants.size())};
    if (&codelet == single_codelet())
      for (std::size_t v = 0; v < fresh.variants.size() && v < remembered_variants_.size(); ++v)
        if (static_cast<std::size_t>(me.id) < remembered_variants_[v].size())
          fresh.variants[v].remembered = remembered_variants_[v][static_cast<std::size_t>(me.id)];
    slot.tallies.push_back(std::move(fresh));
    state = slot.tallies.end() - 1;
  }
  // The device's pooled rate once this worker has tried every variant (see PooledTally).
  const bool pooled = pooled_ != nullptr && &codelet == codelet_;
  const auto rate = [&](std::size_t v) {
    if (pooled) {
      const PooledTally& p =
          pooled_[static_cast<std::size_t>(device_index_[static_cast<std::size_t>(me.id)]) *
                      codelet.variants.size() +
                  v];
      const auto items = p.items.load(std::memory_order_relaxed);
      const auto nanoseconds = p.nanoseconds.load(std::memory_order_relaxed);
      if (items > 0)
        return static_cast<double>(items) * 1e9 /
               static_cast<double>(std::max<std::uint64_t>(nanoseconds, 1));
    }
    return state->variants[v].rate();
  };
  // Fallbacks only where nothing else runs; trials in an order rotated by the worker's id, so
  // that the workers' trial chunks of each variant cover the range alike.
  const std::size_t count = codelet.variants.size();
  bool only_fallbacks = true;
  for (const Variant& v : codelet.variants)
    only_fallbacks = only_fallbacks && !(v.runs_on(me) && !v.fallback);
  std::ptrdiff_t best = -1;
  double best_rate = 0;
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t v = (k + static_cast<std::size_t>(me.id)) % count;
    const Variant& variant = codelet.variants[v];
    if (!variant.runs_on(me) || (variant.fallback && !only_fallbacks)) continue;
    const VariantTally& t = state->variants[v];
    if (!t.measured() && t.tasks < variant_trials) return {&variant, &state->variants[v]};  // try it
    const double r = rate(v);
    if (best < 0 || r > best_rate) {
      best = static_cast<std::ptrdiff_t>(v);
      best_rate = r;
    }
  }
  if (best < 0)
    throw Error::unsupported("scheduler: codelet '" + codelet.name + "' has no variant that runs on " +
                             to_string(me.device) + " worker " + std::to_string(me.id));
  return {&codelet.variants[static_cast<std::size_t>(best)],
          &state->variants[static_cast<std::size_t>(best)]};
}

bool Job::execute(const WorkerInfo& me, const Codelet& codelet, const Chunk& chunk, const WorkerContext& ctx,
                  std::uint64_t batch_index) {
  WorkerSlot& slot = slots_[static_cast<std::size_t>(me.id)];
  VariantTally* tally = nullptr;
  try {
    if (inject_faults_) faults_.before_task(me);
    const auto [variant, picked] = pick_variant(slot, me, codelet);
    tally = picked;
    variant->run(chunk, ctx);
  } catch (...) {
    if (tally != nullptr) ++tally->tasks;  // a failed trial counts as tried
    handle_failure(me, chunk, batch_index, std::current_exception());
    return false;
  }
  // Busy from the end of the previous chunk (or the end of idling): taking the chunk counts.
  const auto end = Clock::now();
  ++tally->tasks;
  tally->items += chunk.size();
  tally->seconds += seconds(end - slot.mark);
  if (pooled_ != nullptr && &codelet == codelet_) {
    // A range run has one codelet, so the worker's one tallies entry is this codelet's.
    const auto v = static_cast<std::size_t>(tally - slot.tallies.front().variants.data());
    PooledTally& p = pooled_[static_cast<std::size_t>(device_index_[static_cast<std::size_t>(me.id)]) *
                                 codelet.variants.size() +
                             v];
    p.items.fetch_add(chunk.size(), std::memory_order_relaxed);
    p.nanoseconds.fetch_add(
        static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(end - slot.mark).count()),
        std::memory_order_relaxed);
  }
  record(slot, chunk, slot.mark, end);
  slot.mark = end;
  return true;
}

void Job::record(WorkerSlot& slot, const Chunk& chunk, Clock::time_point begin,
                 Clock::time_point end) noexcept {
  const double busy = seconds(end - begin);
  WorkerStats& stats = slot.stats;
  ++stats.tasks;
  stats.items += chunk.size();
  stats.busy_seconds += busy;
  stats.finish_seconds = seconds(end - start_);
  if (chunk.size() > 0) {
    // A moving average: recent chunks count most, one odd chunk does not swing it.
    const double measured = static_cast<double>(chunk.size()) / std::max(busy, 1e-7);
    const double old = slot.rate.load(std::memory_order_relaxed);
    slot.rate.store(old > 0 ? 0.5 * old + 0.5 * measured : measured, std::memory_order_relaxed);
    slot.fit.add(static_cast<double>(chunk.size()), busy);
    publish_cost(slot);
    if (old <= 0) estimate_.at.store(0, std::memory_order_relaxed);  // first measurement: refresh soon
  }
}

void Job::run_inline(const WorkerInfo& me, std::stop_token stop) {
  WorkerSlot& slot = slots_[static_cast<std::size_t>(me.id)];
  const WorkerContext ctx{&me, std::move(stop)};
  start_ = Clock::now();
  started_ = true;
  const auto run_one = [&](const Codelet& codelet, const Chunk& chunk) {
    if (!codelet.can_execute(me))
      throw Error::unsupported("scheduler: a run started inside a task executes inline on " +
                               to_string(me.device) + " worker " + std::to_string(me.id) + ", but codelet '" +
                               codelet.name + "' has no " + std::string(to_string(me.kind)) +
                               " implementation that runs there");
    const auto [variant, tally] = pick_variant(slot, me, codelet);
    const auto begin = Clock::now();
    variant->run(chunk, ctx);
    const auto end = Clock::now();
    ++tally->tasks;
    tally->items += chunk.size();
    tally->seconds += seconds(end - begin);
    record(slot, chunk, begin, end);
  };
  if (kind_ == Kind::batch) {
    for (const Task& t : tasks_) {
      run_one(*t.codelet, Chunk{t.id, 0, t.size});
      unfinished_.fetch_sub(1, std::memory_order_relaxed);
    }
  } else if (range_size_ > 0) {
    run_one(*codelet_, Chunk{options_.id, 0, range_size_});
    unfinished_.store(0, std::memory_order_relaxed);
  }
}

void Job::report_finished(WorkerSlot& slot) noexcept {
  if (slot.unreported == 0) return;
  const std::size_t units = std::exchange(slot.unreported, 0);
  if (unfinished_.fetch_sub(units, std::memory_order_acq_rel) == units) wake_all();
}

void Job::handle_failure(const WorkerInfo& me, const Chunk& chunk, std::uint64_t batch_index,
                         std::exception_ptr e) {
  WorkerSlot& slot = slots_[static_cast<std::size_t>(me.id)];
  ++slot.stats.failures;
  std::string message = describe(e);
  std::lock_guard lock(mutex_);
  failures_.push_back({me.id, me.device, chunk.task, chunk.begin, chunk.end, std::move(message)});
  if (options_.on_failure == FailureMode::propagate) {
    abort_locked(std::move(e));
    return;
  }
  // Retire this worker for the run and hand what it failed or still holds to the others.
  slot.stats.retired = true;
  slot.live.store(false, std::memory_order_relaxed);
  (me.kind == DeviceKind::gpu ? live_gpu_ : live_cpu_).fetch_sub(1, std::memory_order_relaxed);
  std::size_t moved = 0;
  if (kind_ == Kind::batch) {
    overflow_tasks_.push_back(batch_index);
    moved = 1;
    while (const auto t = slot.tasks.pop()) {
      overflow_tasks_.push_back(*t);
      ++moved;
    }
  } else {
    overflow_ranges_.push_back({chunk.begin, chunk.end});
    const ItemRange rest = slot.range.take_all();
    if (!rest.empty()) overflow_ranges_.push_back(rest);
    moved = chunk.size() + rest.size();
  }
  overflow_size_.fetch_add(moved, std::memory_order_release);
  if (!feasible_locked())
    abort_locked(std::make_exception_ptr(Error(ErrorKind::resource, infeasible_message_locked())));
  wake_all();
}

void Job::abort_locked(std::exception_ptr e) noexcept {
  if (!error_) error_ = std::move(e);
  aborted_.store(true, std::memory_order_relaxed);
  wake_all();
}

bool Job::feasible_locked() const noexcept {
  const bool cpu = live_cpu_.load(std::memory_order_relaxed) > 0;
  const bool gpu = live_gpu_.load(std::memory_order_relaxed) > 0;
  const auto runnable = [&](const Codelet& c) {
    return (cpu && c.can_execute(DeviceKind::cpu)) || (gpu && c.can_execute(DeviceKind::gpu));
  };
  if (kind_ == Kind::range) return overflow_ranges_.empty() || runnable(*codelet_);
  return std::all_of(overflow_tasks_.begin(), overflow_tasks_.end(),
                     [&](std::uint64_t t) { return runnable(*tasks_[t].codelet); });
}

std::string Job::infeasible_message_locked() const {
  std::string what;
  const Codelet* codelet = codelet_;
  if (kind_ == Kind::range) {
    what = "items [" + std::to_string(overflow_ranges_.front().begin) + ", " +
           std::to_string(overflow_ranges_.front().end) + ")";
  } else {
    const bool cpu = live_cpu_.load(std::memory_order_relaxed) > 0;
    const bool gpu = live_gpu_.load(std::memory_order_relaxed) > 0;
    for (const std::uint64_t t : overflow_tasks_) {
      const Codelet& c = *tasks_[t].codelet;
      if ((cpu && c.can_execute(DeviceKind::cpu)) || (gpu && c.can_execute(DeviceKind::gpu))) continue;
      what = "task " + std::to_string(tasks_[t].id);
      codelet = &c;
      break;
    }
  }
  const bool has_cpu = codelet->can_execute(DeviceKind::cpu);
  const bool has_gpu = codelet->can_execute(DeviceKind::gpu);
  std::string kinds = has_cpu && has_gpu ? "cpu or gpu" : has_cpu ? "cpu" : "gpu";
  std::string message = "scheduler: no device can run " + what + " of codelet '" + codelet->name +
                        "' any more: it needs a " + kinds +
                        " worker and every one was retired after failing (";
  for (std::size_t i = 0; i < failures_.size(); ++i) {
    const FailureRecord& f = failures_[i];
    message += (i > 0 ? "; " : "") + to_string(f.device) + " worker " + std::to_string(f.worker) + " task " +
               std::to_string(f.task) + ": " + f.message;
  }
  return message + ")";
}

void Job::wake_all() noexcept {
  epoch_.fetch_add(1, std::memory_order_release);
  epoch_.notify_all();
}

void Job::cancel() noexcept {
  cancel_.request_stop();
  wake_all();
}

RunReport Job::build_report(const CounterStatus& counters) const {
  RunReport report;
  report.policy = std::string(policy_->name());
  Statistics& s = report.statistics;
  s.runs = 1;
  s.wall_seconds = started_ ? seconds(Clock::now() - start_) : 0.0;
  s.counters = counters;
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    WorkerStats w = slots_[i].stats;
    for (const CodeletTallies& c : slots_[i].tallies) {
      std::vector<VariantStats> done;
      for (std::size_t v = 0; v < c.variants.size(); ++v)
        if (c.variants[v].tasks > 0)
          done.push_back(
              {c.codelet->variants[v].name, c.variants[v].tasks, c.variants[v].items, c.variants[v].seconds});
      add_variants(w.variants, done);
    }
    s.workers.push_back(std::move(w));
  }
  {
    std::lock_guard lock(mutex_);
    s.failures = failures_;
  }
  const std::size_t left = unfinished_.load(std::memory_order_acquire);
  if (left > 0 && cancel_.stop_requested()) report.status = RunStatus::cancelled;
  if (kind_ == Kind::batch) {
    std::size_t total = 0;
    for (const Task& t : tasks_) total += t.size;
    report.dropped_tasks = left;
    report.dropped_items = total - std::min(total, s.total_items());
  } else {
    report.dropped_items = left;
  }
  return report;
}

std::vector<double> Job::measured_rates() const {
  std::vector<double> rates(workers_.size(), 0.0);
  for (std::size_t i = 0; i < workers_.size(); ++i) rates[i] = slots_[i].rate.load(std::memory_order_relaxed);
  return rates;
}

ChunkCost Job::cost_of(DeviceKind kind, const WorkerSlot& slot) noexcept {
  // A core's items/s stand for its cost (policies.hpp), a GPU's only until its fit exists.
  const double marginal = slot.marginal_rate.load(std::memory_order_relaxed);
  if (kind == DeviceKind::gpu && marginal > 0)
    return {slot.fixed_seconds.load(std::memory_order_relaxed), marginal};
  return {0, slot.rate.load(std::memory_order_relaxed)};
}

std::vector<ChunkCostFit> Job::measured_fits() const {
  std::vector<ChunkCostFit> fits(workers_.size());
  for (std::size_t i = 0; i < workers_.size(); ++i) fits[i] = slots_[i].fit;
  return fits;
}

void Job::publish_cost(WorkerSlot& slot) noexcept {
  const ChunkCost cost = slot.fit.cost();
  const bool was_fitted = slot.marginal_rate.load(std::memory_order_relaxed) > 0;
  slot.fixed_seconds.store(cost.fixed_seconds, std::memory_order_relaxed);
  slot.marginal_rate.store(cost.rate, std::memory_order_relaxed);
  if (was_fitted != (cost.rate > 0)) estimate_.at.store(0, std::memory_order_relaxed);  // refresh now
}

std::vector<std::vector<double>> Job::measured_variant_rates() const {
  const Codelet* codelet = single_codelet();
  if (codelet == nullptr) return {};
  std::vector<std::vector<double>> rates(codelet->variants.size(), std::vector<double>(workers_.size(), 0.0));
  for (std::size_t i = 0; i < workers_.size(); ++i)
    for (const CodeletTallies& c : slots_[i].tallies)
      if (c.codelet == codelet)
        for (std::size_t v = 0; v < c.variants.size(); ++v)
          if (c.variants[v].items > 0) rates[v][i] = c.variants[v].rate();
  return rates;
}

std::exception_ptr Job::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

void Job::complete(RunReport report) noexcept {
  report_ = std::move(report);
  done_.store(true, std::memory_order_release);
  done_.notify_all();
}

void Job::fail_before_start(std::exception_ptr error) noexcept {
  {
    std::lock_guard lock(mutex_);
    error_ = std::move(error);
  }
  RunReport report;
  report.status = RunStatus::cancelled;
  complete(std::move(report));
}

}  // namespace sextant::scheduler::detail

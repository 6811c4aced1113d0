#include "scheduler/scheduler.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <utility>

#include "core/error.hpp"
#include "scheduler/job.hpp"
#include "scheduler/wait.hpp"

namespace sextant::scheduler {

namespace {
// Which scheduler (and worker) the current thread belongs to: a run started from a task executes
// inline, and waiting on a run from a task is refused instead of deadlocking.
thread_local const Scheduler* tls_scheduler = nullptr;
thread_local int tls_worker = -1;
thread_local std::stop_token tls_stop;
}  // namespace

bool RunHandle::ready() const noexcept {
  return job_ && job_->done();
}

RunReport RunHandle::wait() const {
  if (!job_) throw Error::internal("RunHandle::wait() on an empty handle");
  if (!job_->done() && owner_ == tls_scheduler)
    throw Error::internal(
        "RunHandle::wait() from a task of the same scheduler would deadlock; use run() or "
        "parallel_for(), which execute inline there");
  job_->wait_done();
  if (const std::exception_ptr error = job_->error()) std::rethrow_exception(error);
  return job_->report();
}

void release_openmp_threads() noexcept {
  if (omp_in_parallel() == 0) omp_pause_resource_all(omp_pause_soft);
}

Scheduler::Scheduler(Topology topology, SchedulerOptions options)
    : topology_(std::move(topology)),
      options_(std::move(options)),
      workers_(plan_workers(topology_, options_.layout)) {
  const std::size_t n = workers_.size();
  // The workers are about to take every core they are given (an OpenMP loop the calling thread ran
  // just before, input generation or parsing, may have left its threads spinning there).
  release_openmp_threads();
  for (const WorkerInfo& w : workers_) victims_.push_back(scheduler::victim_order(workers_, w.id));
  binding_.assign(n, BindResult::skipped);
  counter_reasons_.assign(n, "");
  counter_status_.events = options_.counter_events;
  statistics_.workers.resize(n);
  for (const WorkerInfo& w : workers_) {
    statistics_.workers[static_cast<std::size_t>(w.id)].worker = w.id;
    statistics_.workers[static_cast<std::size_t>(w.id)].device = w.device;
  }

  std::atomic<std::size_t> started{0};
  try {
    threads_.reserve(n);
    for (const WorkerInfo& w : workers_)
      threads_.emplace_back(
          [this, id = w.id, &started](std::stop_token stop) { worker_main(std::move(stop), id, started); });
  } catch (...) {  // could not start a thread: stop those that run, then report
    for (auto& t : threads_) t.request_stop();
    generation_.fetch_add(1);
    generation_.notify_all();
    for (auto& t : threads_) t.join();
    throw;
  }
  // Workers are pinned and their counters open before the first run.
  for (std::size_t seen = started.load(); seen < n; seen = started.load()) started.wait(seen);

  if (!counter_status_.events.empty()) {
    counter_status_.available = worker_count(DeviceKind::cpu) > 0;
    counter_status_.reason = counter_status_.available ? "" : "no CPU workers";
    for (const WorkerInfo& w : workers_) {
      const std::string& reason = counter_reasons_[static_cast<std::size_t>(w.id)];
      if (w.kind == DeviceKind::cpu && !reason.empty()) {
        counter_status_.available = false;
        counter_status_.reason = reason;
        break;
      }
    }
  }
  statistics_.counters = counter_status_;
}

Scheduler::~Scheduler() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (const auto& job : queue_) {
      job->cancel();
      job->complete(job->build_report(counter_status_));
    }
    queue_.clear();
    if (current_) current_->cancel();
  }
  for (auto& t : threads_) t.request_stop();
  {
    std::lock_guard lock(mutex_);
    generation_.fetch_add(1, std::memory_order_release);
  }
  generation_.notify_all();
  for (auto& t : threads_) t.join();
}

int Scheduler::worker_count(DeviceKind kind) const noexcept {
  return static_cast<int>(
      std::count_if(workers_.begin(), workers_.end(), [&](const WorkerInfo& w) { return w.kind == kind; }));
}

void Scheduler::worker_main(std::stop_token stop, int id, std::atomic<std::size_t>& started) {
  const WorkerInfo& me = workers_[static_cast<std::size_t>(id)];
  tls_scheduler = this;
  tls_worker = id;
  if (options_.bind_workers)
    binding_[static_cast<std::size_t>(id)] = bind_current_thread(topology_, me.cores);
  // Counters open after pinning, on this thread, and only for CPU workers.
  detail::CounterSet counters;
  if (me.kind == DeviceKind::cpu && !options_.counter_events.empty()) {
    counters = detail::CounterSet::open(options_.counter_events);
    if (!counters.active()) counter_reasons_[static_cast<std::size_t>(id)] = counters.reason();
  }
  started.fetch_add(1);
  started.notify_all();

  std::uint64_t joined = 0;  // generation of the last run this worker took part in
  while (true) {
    std::shared_ptr<detail::Job> job;
    std::uint64_t seen = 0;
    {
      std::lock_guard lock(mutex_);
      seen = generation_.load(std::memory_order_relaxed);
      job = current_;
    }
    if (job && job->generation() != joined) {
      joined = job->generation();
      if (!job->join()) continue;  // over before this worker woke
      tls_stop = job->stop_token();
      job->work(me, victims_[static_cast<std::size_t>(id)], counters);
      tls_stop = {};
      if (job->leave()) finish(std::move(job));
      continue;
    }
    // Checked after joining the current run, so a cancelled run still sees every worker leave.
    if (stop.stop_requested()) break;
    // Only CPU workers spin: a GPU host thread shares its node's cores with them.
    detail::spin_then_wait(generation_, seen,
                           me.kind == DeviceKind::cpu ? std::chrono::nanoseconds(options_.idle_spin)
                                                      : std::chrono::nanoseconds(0));
  }
}

namespace {
// The rates of a codelet's variants are remembered beside the codelet's own ("mdmc/avx2").
std::string variant_key(const Codelet& c, const Variant& v) {
  return c.name + "/" + v.name;
}
}  // namespace

void Scheduler::check_runnable(const Codelet& codelet, const char* what, std::uint64_t id) const {
  for (const WorkerInfo& w : workers_)
    if (codelet.can_execute(w)) return;
  std::string variants;
  for (const Variant& v : codelet.variants)
    variants += (variants.empty() ? "" : ", ") + (v.name.empty() ? std::string("unnamed") : v.name) +
                " for " + std::string(to_string(v.kind)) + (v.can_run ? " (where it can run)" : "");
  throw Error::unsupported(std::string("scheduler: ") + what + " " + std::to_string(id) + " of codelet '" +
                           codelet.name +
                           "' cannot run here: " + std::to_string(worker_count(DeviceKind::cpu)) +
                           " cpu workers and " + std::to_string(worker_count(DeviceKind::gpu)) +
                           " gpu workers, and no variant runs on any of them (variants: " +
                           (variants.empty() ? "none" : variants) + ")");
}

RunHandle Scheduler::submit_batch(std::vector<Task> tasks, std::unique_ptr<detail::PolicyBase> policy,
                                  RunOptions options) {
  const Codelet* checked = nullptr;
  for (const Task& t : tasks) {
    if (t.codelet == nullptr)
      throw Error::argument("task " + std::to_string(t.id) + " codelet", "null", "a codelet");
    if (t.codelet != checked) check_runnable(*t.codelet, "task", t.id);
    checked = t.codelet;
  }
  auto job = std::make_shared<detail::Job>(workers_, std::move(policy), options, options_.faults,
                                           options_.idle_spin);
  job->set_batch(std::move(tasks));
  return enqueue(std::move(job));
}

RunHandle Scheduler::submit_range(std::size_t n, const Codelet& codelet,
                                  std::unique_ptr<detail::PolicyBase> policy, RunOptions options) {
  check_runnable(codelet, "parallel_for", options.id);
  auto job = std::make_shared<detail::Job>(workers_, std::move(policy), options, options_.faults,
                                           options_.idle_spin);
  job->set_range(n, codelet);
  return enqueue(std::move(job));
}

RunHandle Scheduler::enqueue(std::shared_ptr<detail::Job> job) {
  if (tls_scheduler == this) return run_inline(std::move(job));
  RunHandle handle(job, this);
  if (job->work_units() == 0) {
    job->complete(job->build_report(counter_status_));
    return handle;
  }
  std::lock_guard lock(mutex_);
  if (stopping_) {
    job->cancel();
    job->complete(job->build_report(counter_status_));
    return handle;
  }
  queue_.push_back(std::move(job));
  if (!current_) start_next_locked();
  return handle;
}

RunHandle Scheduler::run_inline(std::shared_ptr<detail::Job> job) {
  // A task started a run on its own scheduler: the other workers may all be busy in the current
  // run, so the calling worker does all of it, serially; exceptions propagate from here.
  const WorkerInfo& me = workers_[static_cast<std::size_t>(tls_worker)];
  job->run_inline(me, tls_stop);
  job->complete(job->build_report(counter_status_));
  return RunHandle(std::move(job), this);
}

void Scheduler::start_next_locked() {
  while (!stopping_ && !queue_.empty()) {
    std::shared_ptr<detail::Job> job = std::move(queue_.front());
    queue_.pop_front();
    std::vector<double> remembered;
    std::vector<std::vector<double>> remembered_variants;
    std::vector<ChunkCostFit> fits;
    if (!job->rate_key().empty()) {
      std::lock_guard lock(statistics_mutex_);
      if (const auto it = rates_.find(job->rate_key()); it != rates_.end()) remembered = it->second;
      if (const auto it = fits_.find(job->rate_key()); it != fits_.end()) fits = it->second;
      if (const Codelet* c = job->single_codelet())
        for (const Variant& v : c->variants) {
          const auto it = rates_.find(variant_key(*c, v));
          remembered_variants.push_back(it != rates_.end() ? it->second : std::vector<double>{});
        }
    }
    const std::uint64_t generation = generation_.load(std::memory_order_relaxed) + 1;
    try {
      job->prepare(remembered, remembered_variants, fits, generation);
    } catch (...) {
      job->fail_before_start(std::current_exception());
      continue;
    }
    current_ = std::move(job);
    generation_.store(generation, std::memory_order_release);
    generation_.notify_all();
    return;
  }
}

void Scheduler::finish(std::shared_ptr<detail::Job> job) {
  RunReport report = job->build_report(counter_status_);
  {
    std::lock_guard lock(statistics_mutex_);
    if (job->recorded()) statistics_.merge(report.statistics);
    if (!job->rate_key().empty() && !job->error()) {
      const std::vector<double> measured = job->measured_rates();
      std::vector<double>& remembered = rates_[job->rate_key()];
      remembered.resize(measured.size(), 0.0);
      for (std::size_t i = 0; i < measured.size(); ++i)
        if (measured[i] > 0) remembered[i] = measured[i];
      fits_[job->rate_key()] = job->measured_fits();
      if (const Codelet* c = job->single_codelet()) {
        const std::vector<std::vector<double>> variants = job->measured_variant_rates();
        for (std::size_t v = 0; v < variants.size(); ++v) {
          std::vector<double>& known = rates_[variant_key(*c, c->variants[v])];
          known.resize(variants[v].size(), 0.0);
          for (std::size_t i = 0; i < variants[v].size(); ++i)
            if (variants[v][i] > 0) known[i] = variants[v][i];
        }
      }
    }
  }
  job->complete(std::move(report));
  std::lock_guard lock(mutex_);
  if (current_ == job) current_.reset();
  start_next_locked();
}

Statistics Scheduler::statistics() const {
  std::lock_guard lock(statistics_mutex_);
  return statistics_;
}

void Scheduler::reset_statistics() {
  std::lock_guard lock(statistics_mutex_);
  Statistics fresh;
  fresh.workers.resize(workers_.size());
  for (const WorkerInfo& w : workers_) {
    fresh.workers[static_cast<std::size_t>(w.id)].worker = w.id;
    fresh.workers[static_cast<std::size_t>(w.id)].device = w.device;
  }
  fresh.counters = counter_status_;
  statistics_ = std::move(fresh);
}

}  // namespace sextant::scheduler

// The matching conformance body (matching_conformance.hpp) for every CPU variant this machine can
// run, called on the caller's thread (latency mode), for the template on a scheduler team of CPU
// workers (throughput mode, ranges of a batch on several cores), with filters forced into three
// shards, and for the partitioned mode (each shard on its own fake device, results merged) — all
// on the CPU, so the merge logic is tested without a GPU.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "cpu/matching/matching_variants.hpp"
#include "scheduler/scheduler.hpp"
#include "scheduler/team.hpp"
#include "scheduler/topology.hpp"
#include "templates/matching/match_template.hpp"
#include "templates/matching/prepared_events.hpp"
#include "templates/matching/tables.hpp"
#include "tests/matching/matching_conformance.hpp"

namespace sextant::testing {
namespace {

using namespace sextant::matching;

void check_tables(const MatchTables& tables) {
  for (std::uint32_t s = 0; s < tables.shard_count(); ++s) tables.shard(s).check_invariants();
}

// The template's latency path: one hook on the calling thread.
template <class Hook>
class InlineMatcher : public MatcherUnderTest {
 public:
  explicit InlineMatcher(std::uint32_t shards) : tables_(shards) {}
  void add(const FilterSet& set) override {
    tables_.add(set);
    check_tables(tables_);
  }
  void remove(std::span<const FilterId> ids) override {
    tables_.remove(ids);
    check_tables(tables_);
  }
  MatchResults match(const EventBatch& events, bool filters) override {
    MatchResults out;
    prepared_.prepare(events, 0, events.size(), tables_);
    match_inline(hook_, tables_, prepared_, filters, scratch_, out);
    return out;
  }

 private:
  MatchTables tables_;
  PreparedEvents prepared_;
  MatchScratch scratch_;
  Hook hook_;
};

// A device of kind `gpu` that runs on the host: the CPU kernel over the shards it was synced with,
// ORing its bits into the batch's bitmaps atomically as a real device copy does. It checks that
// the template synchronises it before every batch.
class FakeDeviceHook {
 public:
  static constexpr std::string_view name = "fake-device";
  static constexpr DeviceKind device_kind = DeviceKind::gpu;
  static bool can_run() { return true; }

  void sync(const MatchTables& tables, std::span<const std::uint32_t> shards) {
    shards_.assign(shards.begin(), shards.end());
    synced_ = &tables;
  }
  void match(const MatchBatch& batch, std::uint32_t begin, std::uint32_t end, std::vector<FilterHit>& hits) {
    if (synced_ != batch.tables) throw Error::internal("fake device: matched without a sync");
    std::vector<std::uint64_t> own(static_cast<std::size_t>(batch.events.size) * batch.words, 0);
    for (const std::uint32_t s : shards_) {
      MatchBatch sub = batch;
      sub.shards = batch.shards.subspan(s, 1);
      sub.bitmaps = own.data();
      sub.want_filters = true;  // no early stop: another shard may hold what this one lacks
      const std::size_t first = hits.size();
      MatchCpuOn<cpu::ScalarIsa>{}.match(sub, begin, end, hits);
      for (std::size_t h = first; h < hits.size(); ++h) hits[h].shard = s;
      if (!batch.want_filters) hits.resize(first);
    }
    for (std::uint64_t i = std::uint64_t{begin} * batch.words; i < std::uint64_t{end} * batch.words; ++i)
      std::atomic_ref<std::uint64_t>(batch.bitmaps[i]).fetch_or(own[i]);
  }

 private:
  std::vector<std::uint32_t> shards_;
  const MatchTables* synced_ = nullptr;
};

FakeDeviceHook make_fake_device(int) {
  return {};
}
auto team_offers() {
  return std::tuple_cat(offers_of<MatchCpuVariants>(), std::tuple{Offer{&make_fake_device, true}});
}
template <class T>
struct HooksOf;
template <class... Makes>
struct HooksOf<std::tuple<Offer<Makes>...>> {
  using type = MatchHooks<Makes...>;
};
using TeamHooks = typename HooksOf<decltype(team_offers())>::type;

// The template on a scheduler team: `cores` CPU workers and `devices` fake devices (synthetic
// machine); partitioned: one shard per fake device, every device matches the whole batch.
class TeamMatcher : public MatcherUnderTest {
 public:
  TeamMatcher(int cores, int devices, bool partitioned)
      : tables_(partitioned ? static_cast<std::uint32_t>(devices) : 1),
        partitioned_(partitioned),
        scheduler_(machine(cores, devices), options()),
        team_(scheduler_, scheduler::TeamMode::all_workers, scheduler::FailureMode::propagate),
        hooks_(make_hooks()) {
    team_.range_policy.min_cpu_chunk = 3;  // several chunks even for small batches
    team_.range_policy.min_gpu_chunk = 5;
    team_.range_policy.min_chunk_seconds = 0;
  }
  void add(const FilterSet& set) override {
    tables_.add(set);
    check_tables(tables_);
  }
  void remove(std::span<const FilterId> ids) override {
    tables_.remove(ids);
    check_tables(tables_);
  }
  MatchResults match(const EventBatch& events, bool filters) override {
    MatchResults out;
    prepared_.prepare(events, 0, events.size(), tables_);
    if (partitioned_) {
      match_partitioned(team_, *hooks_, tables_, prepared_, filters, scratch_, out, [this](int worker) {
        return team_.kind(worker) == DeviceKind::gpu ? team_.gpu_ordinal(worker) : -1;
      });
    } else {
      match_on_team(team_, *hooks_, tables_, prepared_, filters, scratch_, out);
    }
    return out;
  }

 private:
  using Hooks = TeamHooks;

  static scheduler::Topology machine(int cores, int devices) {
    scheduler::Topology t =
        scheduler::synthetic_topology("package:1 core:" + std::to_string(cores + devices) + " pu:1");
    std::vector<scheduler::GpuInfo> gpus;
    for (int g = 0; g < devices; ++g) gpus.push_back({g, 0, std::size_t{1} << 30, "fake"});
    scheduler::add_gpus(t, std::move(gpus));
    return t;
  }
  static scheduler::SchedulerOptions options() {
    scheduler::SchedulerOptions o;
    o.layout.gpu_own_core = true;
    return o;
  }
  std::unique_ptr<Hooks> make_hooks() {
    return std::apply([&](auto... offers) { return std::make_unique<Hooks>(team_.workers(), offers...); },
                      team_offers());
  }

  MatchTables tables_;
  bool partitioned_;
  scheduler::Scheduler scheduler_;
  scheduler::SchedulerTeam team_;
  std::unique_ptr<Hooks> hooks_;
  PreparedEvents prepared_;
  MatchScratch scratch_;
};

template <class Isa>
MatchBackend inline_backend(std::string name, std::uint32_t shards = 1) {
  return {
      std::move(name),
      [] { return cpu::allowed<Isa>() ? std::string() : std::string(Isa::name) + " is not available here"; },
      [shards] { return std::make_unique<InlineMatcher<MatchCpuOn<Isa>>>(shards); }};
}

std::vector<MatchBackend> cpu_backends() {
  std::vector<MatchBackend> out = {
      inline_backend<cpu::ScalarIsa>("scalar"),
      inline_backend<cpu::Avx2Isa>("avx2"),
      inline_backend<cpu::Avx512Isa>("avx512"),
      inline_backend<cpu::ScalarIsa>("scalar_3_shards", 3),
  };
  out.push_back({"team_3_cores", [] { return std::string(); },
                 [] { return std::make_unique<TeamMatcher>(3, 0, false); }});
  out.push_back({"team_2_cores_2_fake_devices", [] { return std::string(); },
                 [] { return std::make_unique<TeamMatcher>(2, 2, false); }});
  out.push_back({"partitioned_3_fake_devices", [] { return std::string(); },
                 [] { return std::make_unique<TeamMatcher>(1, 3, true); }});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Cpu, MatchingConformance, ::testing::ValuesIn(cpu_backends()), backend_name);

}  // namespace
}  // namespace sextant::testing

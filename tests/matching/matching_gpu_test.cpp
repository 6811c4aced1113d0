// The matching conformance body (matching_conformance.hpp) on a GPU (label gpu; skipped without
// CUDA or a GPU): the CCM hook itself (one shard, three shards on one GPU), and the Matcher on
// gpu0, on every device, with filters partitioned over the GPUs, and one event at a time. Then
// what only the GPU has: its copy of the tables follows changes by delta uploads, not full copies;
// the generator's default shape at a tenth of the scale gives the CPU's results.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "api/matcher.hpp"
#include "core/config.hpp"
#include "datagen/pubsub_generator.hpp"
#include "templates/matching/match_template.hpp"
#include "templates/matching/prepared_events.hpp"
#include "tests/gpu/gpu_test_support.hpp"
#include "tests/matching/matching_conformance.hpp"
#if SEXTANT_HAS_CUDA
#include "gpu/matching/match_gpu.hpp"
#include "gpu/pinned_memory.hpp"
#endif

namespace sextant::testing {
namespace {

using namespace sextant::matching;

std::string gpu_unavailable() {
  if (!build::has_cuda) return "built without CUDA";
  if (gpu_count() < 1) return "needs 1 GPU";
  return {};
}

#if SEXTANT_HAS_CUDA
// The hook on its own: the tables log their changes, every match syncs first. With
// `page_locked`, the prepared events live in page-locked memory (as the Matcher's do when a GPU
// matches): a batch without strings is copied straight from its columns. With `range_events`,
// the hook matches a batch in consecutive ranges of that many events (as a team's chunks).
class GpuHookMatcher : public MatcherUnderTest {
 public:
  explicit GpuHookMatcher(std::uint32_t shards, bool page_locked = false, std::size_t range_events = 0)
      : range_events_(range_events),
        tables_(shards),
        hook_(0),
        prepared_(page_locked ? sextant::gpu::pinned_memory() : std::pmr::get_default_resource()) {
    for (std::uint32_t s = 0; s < shards; ++s) {
      tables_.shard(s).log_changes(true);
      all_.push_back(s);
    }
  }
  void add(const FilterSet& set) override { tables_.add(set); }
  void remove(std::span<const FilterId> ids) override { tables_.remove(ids); }
  MatchResults match(const EventBatch& events, bool filters) override {
    hook_.sync(tables_, all_);
    for (std::uint32_t s = 0; s < tables_.shard_count(); ++s) tables_.shard(s).trim_changes();
    MatchResults out;
    out.has_filters = filters;
    prepared_.prepare(events, 0, events.size(), tables_);
    if (range_events_ == 0) {
      match_inline(hook_, tables_, prepared_, filters, scratch_, out);
      return out;
    }
    const MatchBatch batch = make_batch(tables_, prepared_, filters, scratch_, 1);
    for (std::size_t b = 0; b < events.size(); b += range_events_)
      hook_.match(batch, static_cast<std::uint32_t>(b),
                  static_cast<std::uint32_t>(std::min(events.size(), b + range_events_)), scratch_.hits[0]);
    append_results(tables_, prepared_.ids(), batch.bitmaps, batch.words, scratch_.hits, filters, out);
    return out;
  }
  sextant::matching::gpu::MatchGpu& hook() { return hook_; }

 private:
  std::size_t range_events_;
  MatchTables tables_;
  std::vector<std::uint32_t> all_;
  sextant::matching::gpu::MatchGpu hook_;
  PreparedEvents prepared_;
  MatchScratch scratch_;
};
#endif

class ApiGpuMatcher : public MatcherUnderTest {
 public:
  ApiGpuMatcher(const std::string& devices, Placement placement, bool one_at_a_time)
      : matcher_(options(devices, placement)), one_at_a_time_(one_at_a_time) {}
  void add(const FilterSet& set) override { matcher_.add(set); }
  void remove(std::span<const FilterId> ids) override { matcher_.remove(ids); }
  MatchResults match(const EventBatch& events, bool filters) override {
    if (!one_at_a_time_) return matcher_.match(events, filters);
    MatchResults out;
    out.has_filters = filters;
    for (std::size_t i = 0; i < events.size(); ++i) matcher_.match_one(events, i, filters, out);
    return out;
  }

 private:
  static MatcherOptions options(const std::string& devices, Placement placement) {
    MatcherOptions o;
    o.devices = parse_devices("--devices", devices);
    o.placement = placement;
    return o;
  }
  Matcher matcher_;
  bool one_at_a_time_;
};

std::vector<MatchBackend> gpu_backends() {
  std::vector<MatchBackend> out;
#if SEXTANT_HAS_CUDA
  out.push_back({"hook", gpu_unavailable, [] { return std::make_unique<GpuHookMatcher>(1); }});
  out.push_back({"hook_3_shards", gpu_unavailable, [] { return std::make_unique<GpuHookMatcher>(3); }});
  out.push_back(
      {"hook_page_locked", gpu_unavailable, [] { return std::make_unique<GpuHookMatcher>(1, true); }});
  // Ranges of three events: each runs as one kernel (the small-range path), most from inside the
  // batch.
  out.push_back(
      {"hook_small_ranges", gpu_unavailable, [] { return std::make_unique<GpuHookMatcher>(1, false, 3); }});
#endif
  out.push_back({"matcher_gpu0", gpu_unavailable,
                 [] { return std::make_unique<ApiGpuMatcher>("gpu0", Placement::replicate, false); }});
  out.push_back({"matcher_all_devices", gpu_unavailable,
                 [] { return std::make_unique<ApiGpuMatcher>("all", Placement::replicate, false); }});
  out.push_back({"matcher_partitioned", gpu_unavailable,
                 [] { return std::make_unique<ApiGpuMatcher>("all", Placement::partition, false); }});
  out.push_back({"matcher_gpu0_one_at_a_time", gpu_unavailable,
                 [] { return std::make_unique<ApiGpuMatcher>("gpu0", Placement::replicate, true); }});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Gpu, MatchingConformance, ::testing::ValuesIn(gpu_backends()), backend_name);

TEST(MatchingGpu, ChangesReachTheGpuAsDeltas) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  GpuHookMatcher m(1);
  RandomPubSubSpec spec;
  spec.seed = 8;
  RandomPubSub gen(spec);
  std::vector<Filter> live = gen.filters(500);
  m.add(filter_set(live));
  const std::vector<Event> events = gen.events(100);
  const EventBatch batch{std::span<const Event>(events)};
  m.match(batch, true);
  const auto first = m.hook().uploads();
  EXPECT_GE(first.full, 1u);
  for (int i = 0; i < 20; ++i) {
    const Filter f = gen.random_filter(gen.fresh_id());
    m.add(filter_set({f}));
    live.push_back(f);
    const FilterId gone = live[static_cast<std::size_t>(i) * 7].id;
    m.remove(std::vector<FilterId>{gone});
    std::erase_if(live, [&](const Filter& x) { return x.id == gone; });
    const MatchResults r = m.match(batch, true);
    for (std::size_t e = 0; e < events.size(); ++e) {
      const OracleMatch want = oracle_match(live, events[e]);
      ASSERT_EQ(std::vector<FilterId>(r.filters_of(e).begin(), r.filters_of(e).end()), want.filters)
          << "change " << i << " event " << e;
    }
  }
  const auto after = m.hook().uploads();
  EXPECT_EQ(after.full, first.full) << "single changes must not re-upload the tables";
  EXPECT_GE(after.deltas, 20u);
  std::printf("delta uploads: %llu, %llu bytes\n", static_cast<unsigned long long>(after.deltas),
              static_cast<unsigned long long>(after.delta_bytes));
#endif
}

#if SEXTANT_HAS_CUDA
// Every event's matched filters and interfaces against the brute-force oracle.
void expect_oracle_results(const MatchResults& r, const std::vector<Filter>& filters,
                           const std::vector<Event>& events) {
  ASSERT_EQ(r.events.size(), events.size());
  for (std::size_t e = 0; e < events.size(); ++e) {
    const OracleMatch want = oracle_match(filters, events[e]);
    ASSERT_EQ(std::vector<FilterId>(r.filters_of(e).begin(), r.filters_of(e).end()), want.filters) << e;
    ASSERT_EQ(std::vector<InterfaceId>(r.interfaces_of(e).begin(), r.interfaces_of(e).end()), want.interfaces)
        << e;
  }
}

std::vector<Event> without_strings(std::vector<Event> events) {
  for (Event& e : events)
    std::erase_if(e.attributes, [](const Attribute& a) { return a.value.type() == ValueType::string; });
  return events;
}
#endif

// Batches without strings in page-locked memory go up straight from their columns; a batch with
// strings through the staging buffer. Both against the oracle.
TEST(MatchingGpu, PageLockedBatchesAreCopiedStraightFromTheirColumns) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  GpuHookMatcher m(1, true);
  RandomPubSubSpec spec;
  spec.seed = 21;
  RandomPubSub gen(spec);
  const std::vector<Filter> filters = gen.filters(600);
  m.add(filter_set(filters));
  // Large batches without strings go straight from their columns; a batch with strings, or one
  // below the policy's threshold, is staged.
  const std::size_t large = policy::Gpu::min_direct_events + 300;
  const std::vector<Event> with_strings = gen.events(large), numbers = without_strings(with_strings);
  const std::vector<Event> few_numbers(numbers.begin(), numbers.begin() + 700);
  bool has_string = false;
  for (const Event& e : with_strings)
    for (const Attribute& a : e.attributes) has_string |= a.value.type() == ValueType::string;
  ASSERT_TRUE(has_string);
  std::uint64_t direct = m.hook().uploads().direct_batches;
  for (const std::vector<Event>* events : {&numbers, &with_strings, &few_numbers, &numbers}) {
    const MatchResults r = m.match(EventBatch{std::span<const Event>(*events)}, true);
    const bool staged = events != &numbers;
    EXPECT_EQ(m.hook().uploads().direct_batches, direct + (staged ? 0 : 1)) << events->size();
    direct = m.hook().uploads().direct_batches;
    ASSERT_NO_FATAL_FAILURE(expect_oracle_results(r, filters, *events));
  }
#endif
}

// Ranges inside a batch (a team's chunks) go straight from the columns too, with their offsets
// as they are: every range from the policy's threshold on, whatever its first event.
TEST(MatchingGpu, PageLockedRangesAreCopiedStraightFromTheirColumns) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  const std::size_t range = policy::Gpu::min_direct_events + 100;
  GpuHookMatcher m(1, true, range);
  RandomPubSubSpec spec;
  spec.seed = 22;
  RandomPubSub gen(spec);
  const std::vector<Filter> filters = gen.filters(600);
  m.add(filter_set(filters));
  // Three full ranges and a short last one (staged).
  const std::vector<Event> with_strings = gen.events(3 * range + 250),
                           numbers = without_strings(with_strings);
  std::uint64_t direct = m.hook().uploads().direct_batches;
  for (const std::vector<Event>* events : {&numbers, &with_strings}) {
    const MatchResults r = m.match(EventBatch{std::span<const Event>(*events)}, true);
    EXPECT_EQ(m.hook().uploads().direct_batches, direct + (events == &numbers ? 3 : 0)) << events->size();
    direct = m.hook().uploads().direct_batches;
    ASSERT_NO_FATAL_FAILURE(expect_oracle_results(r, filters, *events));
  }
#endif
}

// Ranges of at most policy::Gpu::small_range_events events run as one kernel, with filters asked
// for or not, and with more interfaces (more bitmap words per event).
TEST(MatchingGpu, SmallRangesRunAsOneKernel) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  const std::size_t range = policy::Gpu::small_range_events - 3;
  GpuHookMatcher m(1, false, range);
  RandomPubSubSpec spec;
  spec.seed = 23;
  RandomPubSub gen(spec);
  std::vector<Filter> filters = gen.filters(600);
  m.add(filter_set(filters));
  const std::vector<Event> events = gen.events(20 * range + 2);
  const EventBatch batch{std::span<const Event>(events)};
  std::uint64_t small = m.hook().uploads().small_ranges;
  for (const bool with_filters : {true, false, true}) {
    const MatchResults r = m.match(batch, with_filters);
    EXPECT_EQ(m.hook().uploads().small_ranges, small + 21) << with_filters;
    small = m.hook().uploads().small_ranges;
    ASSERT_EQ(r.events.size(), events.size());
    for (std::size_t e = 0; e < events.size(); ++e) {
      const OracleMatch want = oracle_match(filters, events[e]);
      ASSERT_EQ(std::vector<InterfaceId>(r.interfaces_of(e).begin(), r.interfaces_of(e).end()),
                want.interfaces)
          << e;
      if (with_filters) {
        ASSERT_EQ(std::vector<FilterId>(r.filters_of(e).begin(), r.filters_of(e).end()), want.filters) << e;
      }
    }
  }
  // 300 interfaces: five bitmap words per event instead of one.
  for (Filter& f : filters) f.interface = static_cast<InterfaceId>(f.id % 300);
  m.remove([&] {
    std::vector<FilterId> ids;
    for (const Filter& f : filters) ids.push_back(f.id);
    return ids;
  }());
  m.add(filter_set(filters));
  const MatchResults r = m.match(batch, true);
  EXPECT_EQ(m.hook().uploads().small_ranges, small + 21);
  ASSERT_NO_FATAL_FAILURE(expect_oracle_results(r, filters, events));
#endif
}

TEST(MatchingGpu, DefaultShapeGivesTheCpuResults) {
  SEXTANT_REQUIRE_GPUS(1);
  datagen::PubSubSpec spec;
  spec.min_filters = 2250;
  spec.max_filters = 2750;
  spec.events = 4096;
  spec.names = 30;  // more matches than Table 1 at this scale
  const FilterSet filters = datagen::generate_filters(spec);
  const EventBatch events = datagen::generate_events(spec);
  Matcher cpu;
  MatcherOptions o;
  o.devices = parse_devices("--devices", "gpu0");
  Matcher gpu(o);
  cpu.add(filters);
  gpu.add(filters);
  const MatchResults a = cpu.match(events, true), b = gpu.match(events, true);
  ASSERT_EQ(a.events, b.events);
  EXPECT_EQ(a.interface_offsets, b.interface_offsets);
  EXPECT_EQ(a.interfaces, b.interfaces);
  EXPECT_EQ(a.filters, b.filters);
  EXPECT_GT(a.filters.size(), 100u);
}

}  // namespace
}  // namespace sextant::testing

#include "cpu/window/count_window_cpu.hpp"

#include <functional>
#include <optional>
#include <tuple>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "core/error.hpp"
#include "core/task_team.hpp"
#include "cpu/window/count_window_variants.hpp"
#include "scheduler/scheduler.hpp"
#include "scheduler/topology.hpp"
#include "templates/window/aggregate_traits.hpp"
#include "templates/window/count_window_policy.hpp"

namespace sextant::window {

namespace {

// The team's variants of one hook: fn(begin, end, worker) runs that variant's hook on the run.
template <class Hook>
std::vector<TeamVariant> team_variants(std::span<const CpuCountVariant> variants, const CpuCountRun& run,
                                       Hook hook) {
  std::vector<TeamVariant> out;
  for (const CpuCountVariant& v : variants)
    out.push_back({v.name, DeviceKind::cpu, v.runnable,
                   [&run, f = v.*hook](std::size_t begin, std::size_t end, int) { f(run, begin, end); },
                   v.fallback});
  return out;
}

// The variant a small run takes: the first runnable one that is not a fallback, else a fallback.
const CpuCountVariant& first_runnable(std::span<const CpuCountVariant> variants) {
  const CpuCountVariant* fallback = nullptr;
  for (const CpuCountVariant& v : variants) {
    if (!v.runnable) continue;
    if (!v.fallback) return v;
    if (fallback == nullptr) fallback = &v;
  }
  if (fallback == nullptr) throw Error::unsupported("count windows: no CPU variant runs on this machine");
  return *fallback;
}

template <class Variants>
std::vector<CpuCountVariant> erased_variants() {
  return std::apply([](auto... v) { return std::vector{erase_count_variant<decltype(v)>()...}; }, Variants{});
}

std::string describe(const scheduler::Scheduler& s) {
  std::vector<scheduler::VariantStats> ran;
  for (const scheduler::DeviceStats& d : s.statistics().devices()) scheduler::add_variants(ran, d.variants);
  const std::string what = scheduler::describe_variants(ran);
  return what.empty() ? "cpu" : "cpu (" + what + ")";
}

// team == nullptr: every column on the calling thread.
std::string count_window_on(scheduler::SchedulerTeam* team, const CountWindowArgs& args,
                            std::span<const CpuCountVariant> variants) {
  check_columns(args.in, args.out, args.spec, args.kind, args.positions);
  CpuCountRun run{args, make_geometry(args.in.size, args.spec.length, args.spec.slide)};
  const ChunkGeometry& g = run.g;
  if (g.windows == 0) return {};
  return visit_aggregate(args.in.type, args.kind, [&](auto agg) -> std::string {
    using Agg = decltype(agg);
    using Acc = typename Agg::Acc;
    // Partials: C for every chunk with full chunks, A where chunks have a head; none when S == 1.
    AlignedBuffer<Acc> full, head, scratch;
    if (g.slide > 1) {
      if (g.full_chunks > 0) run.full = (full = AlignedBuffer<Acc>(g.chunks)).data();
      if (g.rest != 0 || g.full_chunks == 0) run.head = (head = AlignedBuffer<Acc>(g.chunks)).data();
    }
    if constexpr (SelectingAggregate<Agg>)
      run.acc = (scratch = AlignedBuffer<Acc>(g.windows)).data();
    else
      run.acc = args.out.data;
    const std::uint64_t blocks =
        g.full_chunks == 0 ? g.windows : (g.windows + g.full_chunks - 1) / g.full_chunks;
    if (team == nullptr) {
      const CpuCountVariant& v = first_runnable(variants);
      if (g.slide > 1) v.slice(run, 0, g.chunks);
      v.expand(run, 0, blocks);
      return std::string(v.name);
    }
    if (g.slide > 1)
      team->run_variants(g.chunks, team_variants(variants, run, &CpuCountVariant::slice),
                         "count-window-slice", Grain::range);
    team->run_variants(blocks, team_variants(variants, run, &CpuCountVariant::expand), "count-window-expand",
                       Grain::range);
    return {};
  });
}

// The variants on team()'s CPU workers, or on the calling thread for a short column (team() is
// then never called).
std::string count_window_with(const CountWindowArgs& args,
                              const std::function<scheduler::SchedulerTeam&()>& team,
                              std::span<const CpuCountVariant> variants) {
  check_columns(args.in, args.out, args.spec, args.kind, args.positions);
  if (make_geometry(args.in.size, args.spec.length, args.spec.slide).used < policy::cpu_inline_values) {
    const std::string ran = count_window_on(nullptr, args, variants);
    return ran.empty() ? "cpu" : "cpu (" + ran + ")";
  }
  scheduler::SchedulerTeam& t = team();
  const std::string ran = count_window_on(&t, args, variants);
  return ran.empty() ? describe(t.scheduler()) : "cpu (" + ran + ")";
}

// ... on `threads` workers of a scheduler of its own on machine(), started only when asked for.
std::string count_window_with(const CountWindowArgs& args, int threads,
                              const std::function<scheduler::Topology()>& machine,
                              std::span<const CpuCountVariant> variants) {
  std::optional<scheduler::Scheduler> s;
  std::optional<scheduler::SchedulerTeam> team;
  return count_window_with(
      args,
      [&]() -> scheduler::SchedulerTeam& {
        scheduler::SchedulerOptions options;
        options.layout.cpu_cores = threads;
        s.emplace(machine(), options);
        return team.emplace(*s, scheduler::TeamMode::cpu_only);
      },
      variants);
}

}  // namespace

std::string count_window_on_team(scheduler::SchedulerTeam& team, const CountWindowArgs& args,
                                 std::span<const CpuCountVariant> variants) {
  return count_window_on(&team, args, variants);
}

std::string count_window_on_cpu(const CountWindowArgs& args, int threads,
                                const std::function<scheduler::Topology()>& machine) {
  return count_window_with(args, threads, machine, erased_variants<CpuCountWindowVariants>());
}

std::string count_window_on_cpu(const CountWindowArgs& args,
                                const std::function<scheduler::SchedulerTeam&()>& team) {
  return count_window_with(args, team, erased_variants<CpuCountWindowVariants>());
}

template <class Isa>
void CpuCountWindowOn<Isa>::run(const CountWindowArgs& args) const {
  if (!can_run())
    throw Error::unsupported(name() + ": this CPU lacks " + std::string(Isa::name) +
                             " (or SEXTANT_SIMD rules it out)");
  const CpuCountVariant only = erase_count_variant<CpuCountWindowOn>();
  count_window_with(
      args, threads,
      [] {
        static const scheduler::Topology machine = scheduler::discover_topology();  // hwloc: once per process
        return machine;
      },
      std::span(&only, 1));
}

template void CpuCountWindowOn<cpu::ScalarIsa>::run(const CountWindowArgs&) const;
template void CpuCountWindowOn<cpu::Avx2Isa>::run(const CountWindowArgs&) const;
template void CpuCountWindowOn<cpu::Avx512Isa>::run(const CountWindowArgs&) const;

}  // namespace sextant::window

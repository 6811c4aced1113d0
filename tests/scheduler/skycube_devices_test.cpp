// The skycube templates on the scheduler's devices (api: DeviceOptions): the same HashCube as the
// reference whatever the device mix and thread count, per-device statistics that add up, device
// failures during a run (injected, and a hook throwing part-way) that leave the result complete
// and are reported. CPU only: synthetic two-node machines (binding is a no-op) and this machine.
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "api/skycube.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "core/task_team.hpp"
#include "cpu/skycube/extended_skyline_cpu.hpp"
#include "cpu/skycube/mdmc_cpu.hpp"
#include "cpu/skycube/quad_tree_cpu.hpp"
#include "cpu/skycube/reference_skycube.hpp"
#include "datagen/skyline_generator.hpp"
#include "scheduler/host_team.hpp"
#include "scheduler/scheduler.hpp"
#include "scheduler/statistics.hpp"
#include "scheduler/team.hpp"
#include "support/host_kept_words.hpp"
#include "templates/skycube/mdmc_devices.hpp"
#include "testing/skycube_conformance.hpp"

namespace sextant::skycube {
namespace {

static_assert(DeviceTeam<scheduler::SchedulerTeam>);

constexpr const char* two_nodes = "package:2 numa:1 core:2 pu:1";  // numa0, numa1: 2 cores each

struct Mix {
  const char* machine;  // hwloc synthetic description; "" = this machine
  const char* devices;
  std::vector<int> threads = {0};  // SkycubeOptions::threads to sweep (0 = every selected core)
};

DeviceOptions on(const Mix& mix) {
  DeviceOptions o;
  o.devices = parse_devices("devices", mix.devices);
  if (*mix.machine != '\0') o.machine = scheduler::synthetic_topology(mix.machine);
  return o;
}

SkycubeResult run(const Dataset& data, TemplateKind kind, int max_level, int threads,
                  const DeviceOptions& devices) {
  SkycubeOptions options;
  options.kind = kind;
  options.max_level = max_level;
  options.threads = threads;
  return compute_skycube(data, options, devices);
}

Dataset anticorrelated(std::size_t n, int d, std::uint64_t seed) {
  datagen::GeneratorSpec spec;
  spec.distribution = datagen::Distribution::anticorrelated;
  spec.n = n;
  spec.d = d;
  spec.seed = seed;
  return datagen::generate(spec);
}

const char* name_of(TemplateKind kind) {
  return kind == TemplateKind::stsc ? "stsc" : kind == TemplateKind::sdsc ? "sdsc" : "mdmc";
}

// ---- the conformance sweep on several device mixes -------------------------------------------

class DeviceMixes : public ::testing::TestWithParam<std::tuple<TemplateKind, Mix>> {};

TEST_P(DeviceMixes, SameCubeAsTheReference) {
  // Not a structured binding: clang 14 does not capture one in a lambda.
  const TemplateKind kind = std::get<0>(GetParam());
  const Mix mix = std::get<1>(GetParam());
  const DeviceOptions devices = on(mix);
  const testing::SkycubeRunner runner{
      std::string(name_of(kind)) + " on " + mix.devices + (*mix.machine ? " of a synthetic machine" : ""),
      [&](const Dataset& data, int max_level, int threads) {
        SkycubeResult r = run(data, kind, max_level, threads, devices);
        EXPECT_TRUE(r.statistics != nullptr);
        EXPECT_EQ(r.template_name, name_of(kind));
        return r.cube;
      }};
  testing::run_conformance(runner, mix.threads);
}

// Large tie-heavy data through the scheduler (issue 21): the distinct points on every device.
TEST(SkycubeOnDevices, TieHeavyLargeOnEveryTemplate) {
  for (const TemplateKind kind : {TemplateKind::stsc, TemplateKind::sdsc, TemplateKind::mdmc}) {
    const testing::SkycubeRunner runner{std::string(name_of(kind)) + " on cpu",
                                        [&](const Dataset& data, int max_level, int threads) {
                                          return run(data, kind, max_level, threads, on(Mix{"", "cpu"})).cube;
                                        }};
    testing::run_tie_heavy(runner);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cpu, DeviceMixes,
    ::testing::Combine(::testing::Values(TemplateKind::stsc, TemplateKind::sdsc, TemplateKind::mdmc),
                       // 1 worker, 3 of 4 cores spread over two nodes, every core; one node of
                       // two; this machine.
                       ::testing::Values(Mix{two_nodes, "numa0,numa1", {1, 3, 0}}, Mix{two_nodes, "numa1"},
                                         Mix{"", "cpu"}, Mix{"", "all", {1}})),
    [](const auto& param) {
      const Mix mix = std::get<1>(param.param);
      std::string name = std::string(name_of(std::get<0>(param.param))) + "_" +
                         (*mix.machine ? "two_nodes_" : "this_machine_") + mix.devices;
      for (char& c : name)
        if (c == ',') c = '_';
      return name;
    });

// ---- statistics ----------------------------------------------------------------------------------

TEST(SkycubeOnDevices, MdmcStatisticsCoverEveryPointOfTheExtendedSkyline) {
  const Dataset data = anticorrelated(3000, 6, 5);
  const SkycubeResult r = run(data, TemplateKind::mdmc, 6, 0, on({two_nodes, "numa0,numa1"}));
  ASSERT_TRUE(r.statistics);
  const scheduler::Statistics& s = *r.statistics;
  EXPECT_EQ(s.runs, 1u);
  EXPECT_EQ(s.total_items(), r.extended_skyline_size);
  const auto devices = s.devices();
  ASSERT_EQ(devices.size(), 2u);
  double share = 0;
  for (const auto& d : devices) {
    EXPECT_EQ(d.workers, 2) << to_string(d.device);
    share += d.share;
  }
  EXPECT_NEAR(share, 1.0, 1e-9);
  EXPECT_TRUE(s.failures.empty());
}

TEST(SkycubeOnDevices, LatticeStatisticsCountOneItemPerCuboid) {
  const Dataset data = anticorrelated(800, 5, 6);
  for (const TemplateKind kind : {TemplateKind::stsc, TemplateKind::sdsc}) {
    SCOPED_TRACE(name_of(kind));
    const SkycubeResult r = run(data, kind, 5, 0, on({two_nodes, "numa0,numa1"}));
    ASSERT_TRUE(r.statistics);
    // Levels d-1 .. 1, one run each; the full-space cuboid comes with the extended skyline.
    EXPECT_EQ(r.statistics->runs, 4u);
    EXPECT_EQ(r.statistics->total_items(), (std::size_t{1} << 5) - 2);
  }
}

TEST(SkycubeOnDevices, SdscRunsOneWorkerPerNumaNodeOnItsCores) {
  const SkycubeResult r =
      run(anticorrelated(500, 4, 7), TemplateKind::sdsc, 4, 0, on({two_nodes, "numa0,numa1"}));
  ASSERT_TRUE(r.statistics);
  const auto devices = r.statistics->devices();
  ASSERT_EQ(devices.size(), 2u);
  for (const auto& d : devices) EXPECT_EQ(d.workers, 1) << to_string(d.device);
}

TEST(SkycubeOnDevices, ThreadsCapTheCpuWorkersOverTheNamedNodes) {
  const SkycubeResult r =
      run(anticorrelated(500, 4, 8), TemplateKind::mdmc, 4, 3, on({two_nodes, "numa0,numa1"}));
  ASSERT_TRUE(r.statistics);
  EXPECT_EQ(r.statistics->workers.size(), 3u);  // numa0: 2, numa1: 1
  const SkycubeResult one =
      run(anticorrelated(500, 4, 8), TemplateKind::mdmc, 4, 1, on({two_nodes, "numa1"}));
  ASSERT_EQ(one.statistics->workers.size(), 1u);
  EXPECT_EQ(one.statistics->workers[0].device, (DeviceId{DeviceKind::cpu, 1}));
}

TEST(SkycubeOnDevices, CountersAreReportedOrUnavailableNeverAnError) {
  DeviceOptions devices = on({"", "cpu"});
  devices.counters = {"PAPI_TOT_INS", "PAPI_L2_TCM"};
  const Dataset data = anticorrelated(1000, 5, 9);
  const SkycubeResult r = run(data, TemplateKind::mdmc, 5, 0, devices);
  testing::expect_same_skycube(r.cube, reference_skycube(data, 5));
  ASSERT_TRUE(r.statistics);
  EXPECT_EQ(r.statistics->counters.events, devices.counters);
  const std::string text = scheduler::report(*r.statistics);
  if (r.statistics->counters.available) {
    EXPECT_NE(text.find("PAPI_TOT_INS"), std::string::npos) << text;
  } else {
    EXPECT_NE(text.find("counters unavailable"), std::string::npos) << text;
  }
}

// One front door: a run without devices named is the CPU device set of the scheduled path.
TEST(SkycubeOnDevices, EveryRunGoesThroughTheSchedulerOnTheCpuByDefault) {
  DeviceOptions devices;
  devices.counters = {"PAPI_TOT_INS"};
  EXPECT_TRUE(run(anticorrelated(300, 4, 10), TemplateKind::stsc, 4, 0, devices).statistics);
  for (const TemplateKind kind : {TemplateKind::stsc, TemplateKind::sdsc, TemplateKind::mdmc}) {
    const SkycubeResult r = run(anticorrelated(300, 4, 10), kind, 4, 0, DeviceOptions{});
    ASSERT_TRUE(r.statistics) << name_of(kind);
    for (const auto& w : r.statistics->workers) EXPECT_EQ(w.device.kind, DeviceKind::cpu) << name_of(kind);
  }
}

TEST(SkycubeOnDevices, AutoPicksATemplateAndTheReferenceStaysOffTheScheduler) {
  const Dataset data = anticorrelated(400, 4, 11);
  const SkycubeResult a = run(data, TemplateKind::automatic, 4, 0, on({two_nodes, "numa0"}));
  EXPECT_EQ(a.template_name, "stsc");  // d = 4: the lattice template
  EXPECT_TRUE(a.statistics);
  const SkycubeResult ref = run(data, TemplateKind::reference, 4, 0, on({"", "cpu"}));
  EXPECT_EQ(ref.template_name, "reference");
  EXPECT_FALSE(ref.statistics);
  testing::expect_same_skycube(a.cube, ref.cube);
}

// From 6 columns on, tie-heavy data goes to MDMC and distinct data stays on STSC (below 10 columns);
// a shallow cube stays on the lattice either way. Both give the reference's cube.
TEST(SkycubeOnDevices, AutoTakesMdmcEarlierOnTieHeavyData) {
  datagen::GeneratorSpec spec;
  spec.distribution = datagen::Distribution::ties;
  spec.n = 3000;
  spec.d = 6;
  spec.seed = 12;
  spec.levels = 8;
  const Dataset ties = datagen::generate(spec);
  const Dataset distinct = anticorrelated(3000, 6, 12);
  const DeviceOptions cpu = on({"", "cpu"});
  const SkycubeResult t = run(ties, TemplateKind::automatic, 6, 0, cpu);
  EXPECT_EQ(t.template_name, "mdmc");
  testing::expect_same_skycube(t.cube, run(ties, TemplateKind::reference, 6, 0, cpu).cube);
  EXPECT_EQ(run(distinct, TemplateKind::automatic, 6, 0, cpu).template_name, "stsc");
  EXPECT_EQ(run(ties, TemplateKind::automatic, 2, 0, cpu).template_name, "stsc");
  spec.d = 5;
  EXPECT_EQ(run(datagen::generate(spec), TemplateKind::automatic, 5, 0, cpu).template_name, "stsc");
}

// ---- bad device requests -----------------------------------------------------------------------

ErrorKind error_kind(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no Error thrown";
  return ErrorKind::internal;
}

TEST(SkycubeOnDevices, BadDeviceRequestsAreClearErrors) {
  const Dataset data = anticorrelated(100, 3, 12);
  // A GPU where there is none (a synthetic machine has no GPUs).
  EXPECT_EQ(error_kind([&] {
              run(data, TemplateKind::mdmc, 3, 0, on({two_nodes, "gpu0"}));
            }),
            ErrorKind::unsupported);
  EXPECT_EQ(error_kind([&] {
              run(data, TemplateKind::mdmc, 3, 0, on({two_nodes, "numa0,gpu1"}));
            }),
            ErrorKind::unsupported);
  // A NUMA node the machine does not have.
  EXPECT_EQ(error_kind([&] {
              run(data, TemplateKind::mdmc, 3, 0, on({two_nodes, "numa2"}));
            }),
            ErrorKind::bad_argument);
  // The reference is CPU-only.
  EXPECT_EQ(error_kind([&] {
              run(data, TemplateKind::reference, 3, 0, on({two_nodes, "gpu0"}));
            }),
            ErrorKind::unsupported);
  // Cores per GPU host worker: 0 is the template's choice, below is an error.
  DeviceOptions negative = on({two_nodes, "numa0"});
  negative.gpu_cores = -1;
  EXPECT_EQ(error_kind([&] { run(data, TemplateKind::mdmc, 3, 0, negative); }), ErrorKind::bad_argument);
  try {
    run(data, TemplateKind::mdmc, 3, 0, on({two_nodes, "gpu0"}));
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gpu0"), std::string::npos) << e.what();
  }
}

// ---- device failures ---------------------------------------------------------------------------

TEST(SkycubeOnDevices, FailingCpuDeviceDuringMdmcKeepsTheResultAndIsReported) {
  const Dataset data = anticorrelated(8000, 8, 13);  // long enough for every worker to take part
  DeviceOptions devices = on({two_nodes, "numa0,numa1"});
  devices.faults = scheduler::FaultInjection::parse("faults", "numa1@1");
  const SkycubeResult r = run(data, TemplateKind::mdmc, 8, 0, devices);
  testing::expect_same_skycube(r.cube, reference_skycube(data, 8));
  ASSERT_TRUE(r.statistics);
  ASSERT_FALSE(r.statistics->failures.empty());
  for (const auto& f : r.statistics->failures) EXPECT_EQ(f.device, (DeviceId{DeviceKind::cpu, 1}));
  EXPECT_NE(scheduler::report(*r.statistics).find("failures:"), std::string::npos);
}

TEST(SkycubeOnDevices, FailingCpuWorkerDuringStscKeepsTheResultAndIsReported) {
  // Seven level runs long enough for every worker to take part in some (the rule fires in each).
  const Dataset data = anticorrelated(8000, 8, 14);
  DeviceOptions devices = on({two_nodes, "numa0,numa1"});
  devices.faults = scheduler::FaultInjection::parse("faults", "worker2@1");  // numa1's first core
  const SkycubeResult r = run(data, TemplateKind::stsc, 8, 0, devices);
  testing::expect_same_skycube(r.cube, reference_skycube(data, 8));
  ASSERT_TRUE(r.statistics);
  EXPECT_FALSE(r.statistics->failures.empty());
  EXPECT_TRUE(r.statistics->workers[2].retired);
}

TEST(SkycubeOnDevices, EveryCpuDeviceFailingIsAClearError) {
  DeviceOptions devices = on({two_nodes, "numa0,numa1"});
  devices.faults = scheduler::FaultInjection::parse("faults", "worker0@1,worker1@1,worker2@1,worker3@1");
  EXPECT_EQ(error_kind([&] { run(anticorrelated(2000, 6, 15), TemplateKind::mdmc, 6, 0, devices); }),
            ErrorKind::resource);
}

// A hook that throws part-way through a chunk, after inserting some points: the template must undo
// those inserts before the chunk runs again elsewhere (the cube would otherwise hold them twice).
class ThrowsHalfway {
 public:
  static constexpr std::string_view name = "throws-halfway";
  static constexpr DeviceKind device_kind = DeviceKind::cpu;

  explicit ThrowsHalfway(std::atomic<int>* armed) : armed_(armed) {}

  void process(const MdmcTasks<MdmcShared>& tasks, HashCubePart& out) {
    if (tasks.end - tasks.begin >= 2 && armed_->fetch_sub(1) > 0) {
      const std::size_t half = tasks.begin + (tasks.end - tasks.begin) / 2;
      inner_.process({tasks.shared, tasks.begin, half}, out);
      throw std::runtime_error("device lost half-way through a chunk");
    }
    inner_.process(tasks, out);
  }

 private:
  std::atomic<int>* armed_;
  MdmcCpu inner_;
};

TEST(SkycubeOnDevices, ChunkFailingHalfwayIsUndoneAndRunsElsewhere) {
  const Dataset data = anticorrelated(3000, 6, 16);
  scheduler::Scheduler s(scheduler::synthetic_topology(two_nodes));
  scheduler::SchedulerTeam team(s, scheduler::TeamMode::all_workers, scheduler::FailureMode::retry_elsewhere);
  scheduler::HostTeam host(s);  // merges the parts, outside the statistics
  std::atomic<int> armed{1};    // the first chunk of the run fails, whoever takes it
  cpu::ExtendedSkylineCpu extended{2};
  cpu::QuadTreeCpu tree{2};
  const SkycubeResult r = mdmc_on_devices(data, 6, extended, tree, team, host,
                                          Offer{[&armed](int) { return ThrowsHalfway(&armed); }, true});
  testing::expect_same_skycube(r.cube, reference_skycube(data, 6));
  const scheduler::Statistics stats = s.statistics();
  ASSERT_EQ(stats.failures.size(), 1u);
  EXPECT_NE(stats.failures[0].message.find("half-way"), std::string::npos);
}

// A hook whose per-run setup fails: the worker is retired at its first chunk, the others finish.
class FailsToPrepare {
 public:
  static constexpr std::string_view name = "fails-to-prepare";
  static constexpr DeviceKind device_kind = DeviceKind::cpu;

  explicit FailsToPrepare(bool broken) : broken_(broken) {}
  void prepare(const MdmcShared&) {
    if (broken_) throw std::runtime_error("out of device memory");
  }
  void process(const MdmcTasks<MdmcShared>& tasks, HashCubePart& out) { inner_.process(tasks, out); }

 private:
  bool broken_;
  MdmcCpu inner_;
};

TEST(SkycubeOnDevices, HookSetupFailureRetiresOnlyThatWorker) {
  static_assert(PreparedMdmcHook<FailsToPrepare, MdmcShared>);
  const Dataset data = anticorrelated(8000, 8, 17);  // long enough for worker 3 to take part
  scheduler::Scheduler s(scheduler::synthetic_topology(two_nodes));
  scheduler::SchedulerTeam team(s, scheduler::TeamMode::all_workers, scheduler::FailureMode::retry_elsewhere);
  scheduler::HostTeam host(s);  // merges the parts, outside the statistics
  cpu::ExtendedSkylineCpu extended{2};
  cpu::QuadTreeCpu tree{2};
  const SkycubeResult r =
      mdmc_on_devices(data, 8, extended, tree, team, host,
                      Offer{[](int worker) { return FailsToPrepare(worker == 3); }, true});
  testing::expect_same_skycube(r.cube, reference_skycube(data, 8));
  const scheduler::Statistics stats = s.statistics();
  ASSERT_FALSE(stats.failures.empty());
  for (const auto& f : stats.failures) {
    EXPECT_EQ(f.worker, 3);
    EXPECT_NE(f.message.find("out of device memory"), std::string::npos);
  }
  EXPECT_EQ(stats.workers[3].items, 0u);
}

// A hook that keeps its words (kept_words.hpp) as the GPU hook does. With `armed`, the first hook
// to reach its third chunk fails there and loses what it kept: the ranges of its first two chunks
// are then in no part, and the template must run them again.
class KeepsWords {
 public:
  static constexpr std::string_view name = "keeps-words";
  static constexpr DeviceKind device_kind = DeviceKind::cpu;

  KeepsWords(bool keeps, std::atomic<int>* armed)
      : keeps_(keeps), armed_(armed), kept_(std::make_shared<testing::HostKeptWords>()) {}

  void process(const MdmcTasks<MdmcShared>& tasks, HashCubePart& out) {
    if (!keeps_) {
      inner_.process(tasks, out);
      return;
    }
    if (!kept_->intact()) throw std::runtime_error("device lost earlier in the run");
    if (out.kept() == nullptr) out.keep(kept_);
    if (++chunks_ == 3 && armed_ != nullptr && armed_->fetch_sub(1) > 0) {
      kept_->lose();
      throw std::runtime_error("device lost, with the words it kept");
    }
    HashCubePart scratch(tasks.shared.tree.dims(), tasks.shared.max_level);
    inner_.process(tasks, scratch);
    kept_->take(scratch, {tasks.begin, tasks.end});
  }

 private:
  bool keeps_;
  std::atomic<int>* armed_;
  std::shared_ptr<testing::HostKeptWords> kept_;
  int chunks_ = 0;
  MdmcCpu inner_;
};

SkycubeResult mdmc_keeping(const Dataset& data, int max_level, scheduler::Scheduler& s,
                           const std::function<KeepsWords(int)>& make) {
  scheduler::SchedulerTeam team(s, scheduler::TeamMode::all_workers, scheduler::FailureMode::retry_elsewhere);
  scheduler::HostTeam host(s);
  cpu::ExtendedSkylineCpu extended{2};
  cpu::QuadTreeCpu tree{2};
  return mdmc_on_devices(data, max_level, extended, tree, team, host, Offer{make, true});
}

TEST(SkycubeOnDevices, KeptWordsJoinTheOtherWorkersParts) {
  const Dataset data = anticorrelated(6000, 7, 18);
  scheduler::Scheduler s(scheduler::synthetic_topology(two_nodes));
  const SkycubeResult r =
      mdmc_keeping(data, 5, s, [](int worker) { return KeepsWords(worker % 2 == 0, nullptr); });
  testing::expect_same_skycube(r.cube, reference_skycube(data, 5));
  EXPECT_TRUE(s.statistics().failures.empty());
}

TEST(SkycubeOnDevices, WhatAFailedDeviceKeptRunsAgainElsewhere) {
  const Dataset data = anticorrelated(8000, 8, 19);  // many chunks per worker
  scheduler::Scheduler s(scheduler::synthetic_topology(two_nodes));
  std::atomic<int> armed{1};
  const SkycubeResult r = mdmc_keeping(data, 8, s, [&armed](int) { return KeepsWords(true, &armed); });
  testing::expect_same_skycube(r.cube, reference_skycube(data, 8));
  EXPECT_LE(armed.load(), 0) << "no hook reached its third chunk: the test lost nothing";
  const scheduler::Statistics stats = s.statistics();
  ASSERT_FALSE(stats.failures.empty());
  EXPECT_NE(stats.failures[0].message.find("with the words it kept"), std::string::npos);
}

}  // namespace
}  // namespace sextant::skycube

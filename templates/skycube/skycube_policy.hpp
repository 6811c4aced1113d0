// The skycube family's tuning numbers, in one place that the planner, the scheduler's layout and
// the kernels all read (host and device code: constexpr only). docs/PERFORMANCE.md holds the
// measurements behind them (sections "Heterogeneous scheduler", "MDMC on the GPU", "Template
// choice").
#pragma once

#include <cstddef>
#include <cstdint>

namespace sextant::skycube::policy {

// ---- the planner ------------------------------------------------------------------------------

// `auto` on the CPU: MDMC from this many columns on when the cube is deep (max_level at least
// min(d, deep_level)); the lattice templates (STSC) below, or for a shallow partial cube. On
// tie-heavy data (in a sample of tie_sample_rows rows, at least half the columns hold at most
// tie_distinct_share of the sample's count of distinct values), MDMC already from
// tie_mdmc_min_dims columns: its extended skyline holds most points, which every lattice cuboid
// then compares, whereas MDMC settles each point's small subspaces without tests.
struct TemplateChoice {
  static constexpr int mdmc_min_dims = 10;
  static constexpr int deep_level = 6;
  static constexpr int tie_mdmc_min_dims = 6;
  static constexpr std::size_t tie_sample_rows = 4096;
  static constexpr double tie_distinct_share = 0.5;
};

// Collapsing exact duplicates (DistinctPoints): ranges of at least this many rows, one per worker.
struct DuplicateCollapse {
  static constexpr std::size_t min_rows_per_range = std::size_t{1} << 16;
};

// Expanding a cube over distinct vectors to every member of each group (HashCube::with_groups):
// a word whose groups hold at least 1/scan_share of all points is filled by one pass over every
// id; the others sort their (key, id) pairs (about four radix passes over what they hold).
struct GroupExpansion {
  static constexpr std::size_t scan_share = 4;
};

// Assembling the HashCube's word positions from the parts (HashCube::from_parts): a word holding at
// least 1/dense_share as many pairs as there are points goes through an array over every id (one
// pass over the ids, no sort), unless its distinct keys pass 1/dense_max_key_share of its pairs
// (near-unique keys: sorting them costs as much as sorting the pairs); other words sort the pairs.
struct HashCubeAssembly {
  static constexpr std::size_t dense_share = 8;
  static constexpr std::size_t dense_max_key_share = 4;
};

// ---- the scheduler's layout and chunks --------------------------------------------------------

// MDMC's chunks of S+ per device kind: a CPU core settles a point in microseconds to milliseconds;
// a GPU runs one block per point and needs thousands per launch. Chunks last at least
// min_chunk_seconds so that the scheduler's cost per chunk stays a small fraction of the run.
// gpu_weight: the first guess of one GPU's rate in CPU cores, before the scheduler measures
// (a low guess errs on the side that stealing corrects cheaply).
struct MdmcChunking {
  static constexpr std::size_t min_cpu_chunk = 16;
  static constexpr std::size_t min_gpu_chunk = 4096;
  static constexpr double min_chunk_seconds = 1e-3;
  static constexpr double gpu_weight = 64;
};

struct DeviceLayout {
  // SDSC's cuboids are often too small to fill a GPU: host workers (a hook and a CUDA stream
  // each) per GPU keep several cuboids in flight.
  static constexpr int sdsc_workers_per_gpu = 2;
  // MDMC's GPU host worker inserts its GPU's bitmaps into a HashCube part; at d = 16 one core
  // inserts slower than an H100 computes, so each GPU gets several cores.
  static constexpr int mdmc_cores_per_gpu = 4;
  // Cores that no CPU worker got (e.g. `--devices gpu0`) join the GPU host workers: they insert
  // faster, and the HashCube assembly after the devices finish runs on every core.
  static constexpr bool mdmc_spare_cores_to_gpus = true;
};

// ---- the skyline front door (api/skyline.hpp, skyline_devices.hpp) ---------------------------

// Below direct_max_points points and with no device named, the skyline runs on the calling thread
// (no scheduler: its start costs more than such a skyline); up to small_max_points points, with
// the plain sum-ordered test of cpu/skycube/small_skyline.hpp (the cuboid engine's setup costs more). With
// several workers, the points are cut into ranges of at least min_range_points, about ranges_per_worker per
// worker, from min_points points on (fewer: one worker computes it all).
struct SkylineSplit {
  static constexpr std::size_t direct_max_points = 16384;
  static constexpr std::size_t small_max_points = 256;
  static constexpr std::size_t min_points = 65536;
  static constexpr std::size_t min_range_points = 16384;
  static constexpr std::size_t ranges_per_worker = 4;
};

// ---- the MDMC CPU kernel ----------------------------------------------------------------------

struct MdmcCpuKernel {
  // Tree levels the label-only filter reads by default (1 = medians .. 3 = full paths).
  static constexpr int filter_levels = 1;
  // First refine pass: top-level nodes worse than p on at most this many columns.
  static constexpr int first_pass_worse = 1;
  // A top-level node is pruned per quartile child when it has at least this many leaves per child.
  static constexpr std::uint32_t descend_leaves_per_child = 8;
  // Leaves per flat label scan; queued candidates are tested once this many wait at a node
  // boundary (a deep queue hides the row loads behind the prefetches).
  static constexpr std::uint32_t scan_block = 128;
  static constexpr std::size_t flush_candidates = 64;
  // The leaves that settled subspaces of a point are tested first for the worker's next point.
  static constexpr std::size_t warm_start_leaves = 32;
  // Dominance tests after a change before `reachable` is recomputed: at least this many, and at
  // least (bitmap words * d) / rebuild_cost_divisor.
  static constexpr std::uint64_t min_tests_between_rebuilds = 16;
  static constexpr std::uint64_t rebuild_cost_divisor = 8;
};

// ---- the GPU kernels --------------------------------------------------------------------------

struct Gpu {
  // Threads per block of the MDMC filter/refine kernel (one block per point of S+) and of the
  // quad tree's gather, key and leaf kernels.
  static constexpr int mdmc_block_threads = 256;
  // The MDMC kernel first refreshes its bitmap of still-open subspaces after mdmc_rebuild_rounds
  // rounds of mdmc_block_threads leaves, or one round per mdmc_rebuild_words_per_round bitmap words
  // if that is more (a refresh costs O(d 2^d / 32) word operations), then after twice as many
  // rounds each time.
  static constexpr std::uint32_t mdmc_rebuild_rounds = 4;
  static constexpr std::size_t mdmc_rebuild_words_per_round = 64;
  static constexpr int quad_tree_block_threads = 256;
  // The skyline engine (SDSC cuboids, the extended skyline): threads per block, which is also the
  // entries per shared tile, and the points per chunk of the candidate list.
  static constexpr int skyline_block_threads = 256;
  static constexpr std::size_t skyline_chunk_points = 8192;

  // MDMC's words kept in device memory (gpu/skycube/mdmc_gpu_kept.cuh).
  struct KeptWords {
    // Words per group of word positions (points x positions): the sort's buffers hold one group.
    static constexpr std::size_t group_items = std::size_t{1} << 24;
    // At most this many word positions a group, so that several GPUs share even small cubes.
    static constexpr std::size_t max_group_width = 32;
    // More points than this (a group of one position) are not kept: CUB counts items in int.
    static constexpr std::size_t max_group_items = std::size_t{1} << 30;
    // The hook keeps its words only if they and the sort's buffers take at most this share of
    // the device's free memory.
    static constexpr double device_share = 0.8;
    // Each host worker's page-locked slot for the ids on their way into the cube.
    static constexpr std::size_t slot_bytes = std::size_t{1} << 20;
  };
};

}  // namespace sextant::skycube::policy

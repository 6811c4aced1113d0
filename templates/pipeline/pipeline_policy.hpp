// The pipeline family's tuning numbers in one place, read by the planner (sizing, merge model),
// the CPU and GPU executors and the front door alike. Measurements behind them:
// docs/PERFORMANCE.md ("Pipelines").
#pragma once

#include <cstddef>
#include <cstdint>

namespace sextant::pipeline::policy {

// Nodes of one pipeline at most (the executors keep per-node state in fixed arrays, so that a
// replica's layout crosses to a GPU by value).
inline constexpr std::size_t max_nodes = 24;

// CPU lanes per vector: the AVX-512 and AVX2 widths of 32-bit lanes. The front door takes the
// widest the core can run unless the caller names one.
inline constexpr std::uint32_t cpu_lanes_avx512 = 16;
inline constexpr std::uint32_t cpu_lanes_avx2 = 8;

// GPU: threads per block = lanes per vector of the block's replica (Mercator's default, 128).
inline constexpr std::uint32_t gpu_lanes = 128;
// Inputs a block claims at a time from the chunk its GPU was handed: at most this many vectors, and
// less when the chunk is small, so that it spreads over every block in as few rounds of claims as
// it needs (a block works through a claim alone, so a chunk takes its rounds times one claim's
// latency); claims are multiples of gpu_claim_granule inputs.
inline constexpr std::uint32_t gpu_claim_vectors = 32;
inline constexpr std::uint32_t gpu_claim_granule = 32;
// Resident blocks per SM at most: each block owns a replica's queues, which live in global memory
// when they do not fit in shared memory.
inline constexpr int gpu_max_blocks_per_sm = 8;
// A replica's queues go to shared memory when they fit in this many bytes (per block), else to
// global memory.
inline constexpr std::size_t gpu_shared_queue_bytes = 96 * 1024;
// Per-replica node states go to shared memory up to this many bytes, else to global memory.
inline constexpr std::size_t gpu_shared_state_bytes = 8 * 1024;
// Output slots allocated per input of a chunk before the first run shows the real count (a run
// that needs more is repeated with the count it reported).
inline constexpr double gpu_output_slots_per_input = 2.0;

// Queue budget per replica when the caller names none (bytes), and Mercator's default scale
// (its compiler's queueScaler: every queue holds scale x vector width x the largest gain limit).
inline constexpr std::size_t default_queue_budget = 64 * 1024;
inline constexpr std::uint32_t mercator_queue_scale = 4;

// Sources profiled to measure gains when the square-root rule or the merge model needs them and
// no profile was given: a prefix of the input this long, at most.
inline constexpr std::size_t profile_sample_sources = 1 << 16;

// Max-vector-gain histograms keep exact counts up to this gain (larger gains share the last bin).
inline constexpr std::uint32_t histogram_bins = 256;

// Chunks of the source range handed to the devices (the team's throughput model): at least this
// many sources per CPU chunk and per GPU chunk, so that a replica's flush at a chunk's end stays
// rare against the vectors it fires.
inline constexpr std::size_t min_cpu_chunk = 4096;
inline constexpr std::size_t min_gpu_chunk = 1 << 18;
inline constexpr double min_chunk_seconds = 2e-3;
// No initial split: a GPU runs the same pipeline thousands of times faster than a core (synthetic,
// BLAST) or slower (N-Queens at n = 14), so any guessed share is wrong by orders of magnitude; every
// worker takes its chunks from one shared range instead (scheduler::ThroughputModelPolicy).
inline constexpr bool shared_pool = true;

}  // namespace sextant::pipeline::policy

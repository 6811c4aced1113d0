// KeptOnGpu: see mdmc_gpu_kept.cuh for the layout and the collect.
#include <algorithm>
#include <bit>
#include <cstring>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <exception>
#include <mutex>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/pinned_memory.hpp"
#include "gpu/skycube/mdmc_gpu_kept.cuh"
#include "templates/skycube/hash_cube.hpp"
#include "templates/skycube/skycube_policy.hpp"

namespace sextant::skycube::detail {
namespace {

using Kept = policy::Gpu::KeptWords;
constexpr Word all_ones = ~Word{0};
constexpr int tile_threads = 256;
constexpr int tile_rounds = 16;
constexpr std::size_t tile_items = std::size_t{tile_threads} * tile_rounds;

unsigned blocks_for(std::size_t items, int threads) {
  return static_cast<unsigned>(std::clamp<std::size_t>((items + threads - 1) / threads, 1, 65535u * 16));
}

struct RowLayout {
  Word* words;
  const std::uint32_t* rank;
  std::uint32_t positions;
  std::uint32_t group_width;
  std::size_t rows;
  // Where leaf position `leaf`'s word of stored position p goes.
  __device__ std::size_t at(std::size_t leaf, std::uint32_t p) const {
    const std::uint32_t group = p / group_width;
    const std::uint32_t width = min(group_width, positions - group * group_width);
    return rows * group * group_width + std::size_t{rank[leaf]} * width + (p - group * group_width);
  }
};

// out: count rows of out_words words; every stored position's word to its row.
__global__ void keep_rows(RowLayout l, const Word* out, std::uint32_t out_words, std::size_t first,
                          std::size_t count, const std::uint32_t* position, const Word* invalid) {
  const std::size_t total = count * l.positions;
  for (std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; t < total;
       t += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t j = t / l.positions;
    const auto p = static_cast<std::uint32_t>(t - j * l.positions);
    l.words[l.at(first + j, p)] = out[j * out_words + position[p]] | invalid[p];
  }
}

__global__ void clear_rows(RowLayout l, std::size_t first, std::size_t count) {
  const std::size_t total = count * l.positions;
  for (std::size_t t = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; t < total;
       t += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t j = t / l.positions;
    l.words[l.at(first + j, static_cast<std::uint32_t>(t - j * l.positions))] = all_ones;
  }
}

__global__ void and_into(Word* words, const Word* other, std::size_t items) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < items;
       i += std::size_t{gridDim.x} * blockDim.x)
    words[i] &= other[i];
}

// Per tile of tile_items words: how many are stored (not all ones). One block per tile.
__global__ void count_stored(const Word* words, std::size_t items, std::uint32_t* counts) {
  const std::size_t first = blockIdx.x * tile_items;
  std::uint32_t count = 0;
  for (int r = 0; r < tile_rounds; ++r) {
    const std::size_t i = first + static_cast<std::size_t>(r) * tile_threads + threadIdx.x;
    count += static_cast<std::uint32_t>(__syncthreads_count(i < items && words[i] != all_ones));
  }
  if (threadIdx.x == 0) counts[blockIdx.x] = count;
}

// The stored words of each tile, in order, from offsets[tile]: key (position in the group << 32 |
// word), value row.
__global__ void compact_stored(const Word* words, std::size_t items, std::uint32_t width,
                               const std::uint32_t* offsets, std::uint64_t* keys, std::uint32_t* rows) {
  using Scan = cub::BlockScan<std::uint32_t, tile_threads>;
  __shared__ typename Scan::TempStorage scan;
  const std::size_t first = blockIdx.x * tile_items;
  std::uint32_t at = offsets[blockIdx.x];
  for (int r = 0; r < tile_rounds; ++r) {
    const std::size_t i = first + static_cast<std::size_t>(r) * tile_threads + threadIdx.x;
    const Word w = i < items ? words[i] : all_ones;
    const std::uint32_t stored = w != all_ones ? 1u : 0u;
    std::uint32_t before = 0;
    std::uint32_t round = 0;
    Scan(scan).ExclusiveSum(stored, before, round);
    if (stored != 0) {
      const std::size_t row = i / width;
      keys[at + before] = (std::uint64_t{static_cast<std::uint32_t>(i - row * width)} << 32) | w;
      rows[at + before] = static_cast<std::uint32_t>(row);
    }
    at += round;
    __syncthreads();  // the scan's storage is reused
  }
}

__global__ void rows_to_ids(const std::uint32_t* rows, const PointId* id_of_row, std::size_t items,
                            PointId* ids) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < items;
       i += std::size_t{gridDim.x} * blockDim.x)
    ids[i] = id_of_row[rows[i]];
}

// Page-locked slots, one per host worker, kept for the process: a run's collect would otherwise
// pay their page-locking each time. One collect holds them at a time.
class PinnedSlots {
 public:
  struct Lease {
    std::unique_lock<std::mutex> lock;
    unsigned char* slots;
  };
  // Room for `workers` slots of Kept::slot_bytes, until the lease ends.
  static Lease lease(int workers) {
    static PinnedSlots instance;
    std::unique_lock lock(instance.mutex_);
    const std::size_t bytes = static_cast<std::size_t>(std::max(workers, 1)) * Kept::slot_bytes;
    if (bytes > instance.bytes_) {
      gpu::free_pinned(std::exchange(instance.data_, nullptr));
      instance.bytes_ = 0;
      instance.data_ = static_cast<unsigned char*>(gpu::allocate_pinned(bytes));
      instance.bytes_ = bytes;
    }
    return {std::move(lock), instance.data_};
  }

 private:
  std::mutex mutex_;
  unsigned char* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace

// One sorted group's runs, on the host: keys (ascending by position in the group, then word),
// their id counts, where each position's runs start, where each run's ids start on the device.
struct KeptOnGpu::Group {
  std::vector<Word> keys;
  std::vector<std::uint32_t> counts;
  std::vector<std::uint32_t> position_start;  // width + 1
  std::vector<std::size_t> id_start;          // runs + 1
  const PointId* ids = nullptr;               // on `ordinal`
  int ordinal = 0;
};

std::shared_ptr<KeptOnGpu> KeptOnGpu::make(const QuadTree& tree, int max_level, int ordinal,
                                           std::size_t spare_bytes, std::size_t group_items) {
  const std::size_t rows = tree.size();
  std::vector<std::uint32_t> positions = stored_positions(tree.dims(), max_level);
  if (rows == 0 || positions.empty() || rows > Kept::max_group_items) return nullptr;
  const std::size_t width =
      std::clamp<std::size_t>((group_items != 0 ? group_items : Kept::group_items) / rows, 1,
                              std::min(positions.size(), Kept::max_group_width));
  const std::size_t items = rows * width;  // the widest group
  const std::size_t tiles = (items + tile_items - 1) / tile_items;

  gpu::ScopedDevice scope(ordinal);
  // The sort's scratch, for the widest group.
  std::size_t sort_bytes = 0;
  std::size_t encode_bytes = 0;
  std::size_t scan_bytes = 0;
  {
    cub::DoubleBuffer<std::uint64_t> k(nullptr, nullptr);
    cub::DoubleBuffer<std::uint32_t> v(nullptr, nullptr);
    SEXTANT_CUDA_CHECK(
        cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, k, v, static_cast<int>(items), 0, 64));
    SEXTANT_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(
        nullptr, encode_bytes, static_cast<const std::uint64_t*>(nullptr),
        static_cast<std::uint64_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
        static_cast<std::uint32_t*>(nullptr), static_cast<int>(items)));
    SEXTANT_CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, static_cast<const std::uint32_t*>(nullptr),
                                      static_cast<std::uint32_t*>(nullptr), static_cast<int>(tiles + 1)));
  }
  const std::size_t temp_bytes = std::max({sort_bytes, encode_bytes, scan_bytes});
  // The blocks, the rank maps, the sort's double buffers and a peer's block received at collect.
  const std::size_t need = rows * positions.size() * sizeof(Word) + rows * 2 * sizeof(std::uint32_t) +
                           items * 2 * (sizeof(std::uint64_t) + sizeof(std::uint32_t)) +
                           items * sizeof(Word) + (tiles + 1) * 2 * sizeof(std::uint32_t) + temp_bytes +
                           spare_bytes;
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  SEXTANT_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (static_cast<double>(need) > Kept::device_share * static_cast<double>(free_bytes)) return nullptr;

  std::shared_ptr<KeptOnGpu> kept(new KeptOnGpu());
  kept->ordinal_ = ordinal;
  kept->rows_ = rows;
  kept->group_width_ = width;
  kept->positions_ = std::move(positions);
  const std::size_t p = kept->positions_.size();

  // Rows in ascending id order: each leaf's rank among the ids of S+ (distinct, < their maximum + 1).
  const auto ids = tree.ids();
  const PointId top = *std::max_element(ids.begin(), ids.end());
  std::vector<std::uint32_t> leaf_of_id(std::size_t{top} + 1, 0xFFFFFFFFu);
  for (std::size_t leaf = 0; leaf < rows; ++leaf) leaf_of_id[ids[leaf]] = static_cast<std::uint32_t>(leaf);
  std::vector<std::uint32_t> rank(rows);
  std::vector<PointId> id_of_row;
  id_of_row.reserve(rows);
  for (std::size_t id = 0; id < leaf_of_id.size(); ++id)
    if (leaf_of_id[id] != 0xFFFFFFFFu) {
      rank[leaf_of_id[id]] = static_cast<std::uint32_t>(id_of_row.size());
      id_of_row.push_back(static_cast<PointId>(id));
    }
  std::vector<Word> invalid(p);
  for (std::size_t k = 0; k < p; ++k) invalid[k] = ~valid_bits(tree.dims(), max_level, kept->positions_[k]);

  kept->words_ = gpu::DeviceBuffer<Word>(rows * p);
  kept->rank_ = gpu::DeviceBuffer<std::uint32_t>(rows);
  kept->id_of_row_ = gpu::DeviceBuffer<PointId>(rows);
  kept->position_ = gpu::DeviceBuffer<std::uint32_t>(p);
  kept->invalid_ = gpu::DeviceBuffer<Word>(p);
  for (auto& k : kept->keys_) k = gpu::DeviceBuffer<std::uint64_t>(items);
  for (auto& v : kept->values_) v = gpu::DeviceBuffer<std::uint32_t>(items);
  kept->tile_counts_ = gpu::DeviceBuffer<std::uint32_t>(tiles + 1);
  kept->tile_offsets_ = gpu::DeviceBuffer<std::uint32_t>(tiles + 1);
  kept->runs_found_ = gpu::DeviceBuffer<std::uint32_t>(1);
  kept->temp_ = gpu::DeviceBuffer<unsigned char>(temp_bytes);
  SEXTANT_CUDA_CHECK(cudaStreamCreateWithFlags(&kept->stream_, cudaStreamNonBlocking));
  cudaStream_t s = kept->stream_;
  SEXTANT_CUDA_CHECK(cudaMemsetAsync(kept->words_.data(), 0xFF, rows * p * sizeof(Word), s));
  SEXTANT_CUDA_CHECK(cudaMemcpyAsync(kept->rank_.data(), rank.data(), rows * sizeof(std::uint32_t),
                                     cudaMemcpyHostToDevice, s));
  SEXTANT_CUDA_CHECK(cudaMemcpyAsync(kept->id_of_row_.data(), id_of_row.data(), rows * sizeof(PointId),
                                     cudaMemcpyHostToDevice, s));
  SEXTANT_CUDA_CHECK(cudaMemcpyAsync(kept->position_.data(), kept->positions_.data(),
                                     p * sizeof(std::uint32_t), cudaMemcpyHostToDevice, s));
  SEXTANT_CUDA_CHECK(
      cudaMemcpyAsync(kept->invalid_.data(), invalid.data(), p * sizeof(Word), cudaMemcpyHostToDevice, s));
  SEXTANT_CUDA_CHECK(cudaStreamSynchronize(s));  // pageable sources
  return kept;
}

KeptOnGpu::~KeptOnGpu() {
  cudaSetDevice(ordinal_);
  if (stream_ != nullptr) {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
}

std::size_t KeptOnGpu::width(std::size_t group) const noexcept {
  return std::min(group_width_, positions_.size() - group * group_width_);
}

void KeptOnGpu::launch_rows(const Word* out, std::size_t out_words, std::size_t first, std::size_t count,
                            cudaStream_t stream) {
  const RowLayout layout{words_.data(), rank_.data(), static_cast<std::uint32_t>(positions_.size()),
                         static_cast<std::uint32_t>(group_width_), rows_};
  const unsigned blocks = blocks_for(count * positions_.size(), 256);
  if (out != nullptr)
    keep_rows<<<blocks, 256, 0, stream>>>(layout, out, static_cast<std::uint32_t>(out_words), first, count,
                                          position_.data(), invalid_.data());
  else
    clear_rows<<<blocks, 256, 0, stream>>>(layout, first, count);
  SEXTANT_CUDA_CHECK_LAUNCH();
}

void KeptOnGpu::keep(const Word* out, std::size_t out_words, std::size_t first, std::size_t count,
                     cudaStream_t stream) {
  if (first + count > rows_) throw Error::internal("KeptOnGpu::keep: leaf positions beyond S+");
  launch_rows(out, out_words, first, count, stream);
}

void KeptOnGpu::finish(std::size_t begin, std::size_t end) {
  const std::lock_guard lock(mutex_);
  done_.emplace_back(begin, end);
}

void KeptOnGpu::undo(std::size_t begin, std::size_t end, cudaStream_t stream) noexcept {
  try {
    gpu::ScopedDevice scope(ordinal_);
    launch_rows(nullptr, 0, begin, end - begin, stream);
    SEXTANT_CUDA_CHECK(cudaStreamSynchronize(stream));
  } catch (...) {
    (void)cudaGetLastError();
    const std::lock_guard lock(mutex_);
    lost_ = true;
  }
}

bool KeptOnGpu::failed() const noexcept {
  const std::lock_guard lock(mutex_);
  return lost_;
}

bool KeptOnGpu::intact() {
  {
    const std::lock_guard lock(mutex_);
    if (lost_) return false;
  }
  int previous = 0;
  const bool ok = cudaGetDevice(&previous) == cudaSuccess && cudaSetDevice(ordinal_) == cudaSuccess &&
                  cudaDeviceSynchronize() == cudaSuccess;
  if (!ok) {
    (void)cudaGetLastError();
    const std::lock_guard lock(mutex_);
    lost_ = true;
  }
  cudaSetDevice(previous);
  return ok;
}

std::vector<KeptWords::LeafRange> KeptOnGpu::done() const {
  const std::lock_guard lock(mutex_);
  return done_;
}

void KeptOnGpu::sort_owned(std::span<KeptOnGpu* const> all, std::size_t self, std::vector<Group>& runs) {
  gpu::ScopedDevice scope(ordinal_);
  const std::size_t peers = all.size();
  gpu::DeviceBuffer<Word> received;
  if (peers > 1) {
    received = gpu::DeviceBuffer<Word>(rows_ * group_width_);
    for (const KeptOnGpu* other : all) {
      int can = 0;
      if (other->ordinal_ == ordinal_ ||
          cudaDeviceCanAccessPeer(&can, ordinal_, other->ordinal_) != cudaSuccess || can == 0)
        continue;
      const cudaError_t status = cudaDeviceEnablePeerAccess(other->ordinal_, 0);
      if (status != cudaSuccess && status != cudaErrorPeerAccessAlreadyEnabled) SEXTANT_CUDA_CHECK(status);
      (void)cudaGetLastError();  // clears cudaErrorPeerAccessAlreadyEnabled
    }
  }
  cudaStream_t s = stream_;
  for (std::size_t c = self; c < groups(); c += peers) {
    const std::size_t w = width(c);
    const std::size_t items = rows_ * w;
    Word* block = words_.data() + base(c);
    for (std::size_t h = 0; h < peers; ++h) {
      if (h == self) continue;
      SEXTANT_CUDA_CHECK(cudaMemcpyPeerAsync(received.data(), ordinal_, all[h]->words_.data() + base(c),
                                             all[h]->ordinal_, items * sizeof(Word), s));
      and_into<<<blocks_for(items, 256), 256, 0, s>>>(block, received.data(), items);
      SEXTANT_CUDA_CHECK_LAUNCH();
    }
    const std::size_t tiles = (items + tile_items - 1) / tile_items;
    count_stored<<<static_cast<unsigned>(tiles), tile_threads, 0, s>>>(block, items, tile_counts_.data());
    SEXTANT_CUDA_CHECK_LAUNCH();
    SEXTANT_CUDA_CHECK(cudaMemsetAsync(tile_counts_.data() + tiles, 0, sizeof(std::uint32_t), s));
    std::size_t temp_bytes = temp_.size();
    SEXTANT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp_.data(), temp_bytes, tile_counts_.data(),
                                                     tile_offsets_.data(), static_cast<int>(tiles + 1), s));
    std::uint32_t stored = 0;
    SEXTANT_CUDA_CHECK(
        cudaMemcpyAsync(&stored, tile_offsets_.data() + tiles, sizeof(stored), cudaMemcpyDeviceToHost, s));
    compact_stored<<<static_cast<unsigned>(tiles), tile_threads, 0, s>>>(
        block, items, static_cast<std::uint32_t>(w), tile_offsets_.data(), keys_[0].data(),
        values_[0].data());
    SEXTANT_CUDA_CHECK_LAUNCH();
    SEXTANT_CUDA_CHECK(cudaStreamSynchronize(s));

    Group& group = runs[c];
    group.ordinal = ordinal_;
    group.ids = block;
    group.position_start.assign(w + 1, 0);
    group.id_start.assign(1, 0);
    if (stored == 0) continue;
    cub::DoubleBuffer<std::uint64_t> keys(keys_[0].data(), keys_[1].data());
    cub::DoubleBuffer<std::uint32_t> values(values_[0].data(), values_[1].data());
    const int end_bit = 32 + static_cast<int>(std::bit_width(w - 1));
    temp_bytes = temp_.size();
    SEXTANT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp_.data(), temp_bytes, keys, values,
                                                       static_cast<int>(stored), 0, end_bit, s));
    // The unused halves take the runs: unique keys and their counts.
    std::uint64_t* unique = keys.Alternate();
    std::uint32_t* counts = values.Alternate();
    temp_bytes = temp_.size();
    SEXTANT_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(temp_.data(), temp_bytes, keys.Current(), unique,
                                                          counts, runs_found_.data(),
                                                          static_cast<int>(stored), s));
    rows_to_ids<<<blocks_for(stored, 256), 256, 0, s>>>(values.Current(), id_of_row_.data(), stored, block);
    SEXTANT_CUDA_CHECK_LAUNCH();
    std::uint32_t found = 0;
    SEXTANT_CUDA_CHECK(cudaMemcpyAsync(&found, runs_found_.data(), sizeof(found), cudaMemcpyDeviceToHost, s));
    SEXTANT_CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<std::uint64_t> packed(found);
    group.counts.resize(found);
    SEXTANT_CUDA_CHECK(
        cudaMemcpyAsync(packed.data(), unique, found * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, s));
    SEXTANT_CUDA_CHECK(cudaMemcpyAsync(group.counts.data(), counts, found * sizeof(std::uint32_t),
                                       cudaMemcpyDeviceToHost, s));
    SEXTANT_CUDA_CHECK(cudaStreamSynchronize(s));
    group.keys.resize(found);
    group.id_start.resize(std::size_t{found} + 1);
    for (std::size_t r = 0; r < found; ++r) {
      group.keys[r] = static_cast<Word>(packed[r]);
      group.id_start[r + 1] = group.id_start[r] + group.counts[r];
      ++group.position_start[(packed[r] >> 32) + 1];
    }
    for (std::size_t k = 0; k < w; ++k) group.position_start[k + 1] += group.position_start[k];
    if (group.id_start.back() != stored)
      throw Error::internal("KeptOnGpu::collect: the runs of a group hold " +
                            std::to_string(group.id_start.back()) + " ids, not " + std::to_string(stored));
  }
}

void KeptOnGpu::collect(std::span<KeptWords* const> all, KeptWordsSink& sink, TeamRef team) {
  std::vector<KeptOnGpu*> gpus;
  for (KeptWords* k : all) {
    auto* g = dynamic_cast<KeptOnGpu*>(k);
    if (g == nullptr || g->rows_ != rows_ || g->positions_ != positions_ || g->group_width_ != group_width_)
      throw Error::internal("KeptOnGpu::collect: kept words of another kind or another tree");
    gpus.push_back(g);
  }
  std::vector<Group> runs(groups());
  // Step 1: every GPU sorts the groups it owns (each on a worker of the team).
  std::vector<std::exception_ptr> failures(gpus.size());
  team.run_tasks(gpus.size(), [&](std::size_t g, int) {
    try {
      gpus[g]->sort_owned(gpus, g, runs);
    } catch (...) {
      failures[g] = std::current_exception();
    }
  });
  for (const std::exception_ptr& f : failures)
    if (f) std::rethrow_exception(f);

  // Step 2: each word position's ids into the cube, through the worker's page-locked slot.
  const PinnedSlots::Lease lease = PinnedSlots::lease(team.workers());
  const std::size_t slot_ids = Kept::slot_bytes / sizeof(PointId);
  team.run_tasks(positions_.size(), [&](std::size_t p, int worker) {
    const std::size_t c = p / group_width_;
    const std::size_t local = p - c * group_width_;
    const Group& group = runs[c];
    const std::uint32_t first = group.position_start[local];
    const std::uint32_t last = group.position_start[local + 1];
    if (first == last) return;
    const std::span<PointId> ids =
        sink.word(positions_[p], std::span<const Word>(group.keys).subspan(first, last - first),
                  std::span<const std::uint32_t>(group.counts).subspan(first, last - first));
    const PointId* from = group.ids + group.id_start[first];
    auto* slot =
        reinterpret_cast<PointId*>(lease.slots + static_cast<std::size_t>(worker) * Kept::slot_bytes);
    gpu::ScopedDevice scope(group.ordinal);
    for (std::size_t at = 0; at < ids.size(); at += slot_ids) {
      const std::size_t take = std::min(slot_ids, ids.size() - at);
      SEXTANT_CUDA_CHECK(cudaMemcpyAsync(slot, from + at, take * sizeof(PointId), cudaMemcpyDeviceToHost,
                                         cudaStreamPerThread));
      SEXTANT_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
      std::memcpy(ids.data() + at, slot, take * sizeof(PointId));
    }
  });
}

}  // namespace sextant::skycube::detail

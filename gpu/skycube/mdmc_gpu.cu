// MdmcGpu: device state and kernel. See mdmc_gpu.hpp for the outline.
//
// Per point p (leaf position i), bitmaps over the masks 0 .. 2^d - 1 in 32-bit words (bit m of
// word m / 32 = subspace m):
//   strict    - bits are set at single masks only ("p is strictly dominated in m"), each meaning
//               every non-empty submask too; closed downwards at the end of each phase;
//   dominated - bits of masks in which p is dominated through a tie (some also covered by strict).
// Result: dominated | down-closure(strict).
//
// FILTER. For every leaf q, better_columns(q, p) (labels only) is a set on which q is strictly
// better than p: one atomicOr of that mask's bit in `strict`. Then the closure.
//
// REFINE. For every leaf q, worse_columns(q, p) (labels) bounds what q can dominate p in: m must
// be a submask of open = full & ~worse. A third bitmap, `reachable`, is the up-closure of the
// subspaces still open: neither dominated nor strictly dominated so far, nor surely in p's skyline
// (made only of columns on which p holds the column's minimum: no q can dominate p there; with
// ties such subspaces would stay open to the end and keep every q that ties p there alive), nor
// above max_level. When bit `open` of `reachable` is clear, q could only settle settled subspaces
// and is skipped without loading its row. `reachable` is refreshed after doubling runs of leaves
// (policy::Gpu) and the refine ends when nothing is open. The
// remaining leaves of a warp's 32 are found by __ballot_sync and tested one after the other by
// the whole warp: lane j < d loads column j of q's row (coalesced) and two ballots give
// le = {j : q[j] <= p[j]} and eq = {j : q[j] == p[j]}; lt = le & ~eq. q dominates p in m iff
// m <= le and m & lt != 0, strictly iff m <= lt. So lane 0 sets bit lt of `strict`, and only
// where q ties p on some column (eq != 0) the masks m <= le that are not submasks of eq are set in
// `dominated`, a 32-bit word at a time, the words spread over the lanes.
//
// The down-closure of `strict` is a zeta transform: per column j, every mask with bit j set ORs
// into the mask without it. Columns 0..4 are inside a word (one pass per word, no barrier);
// column j >= 5 pairs words k and k ^ 2^(j-5), with a barrier per column.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cuda/atomic>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/subspace.hpp"
#include "gpu/cuda_check.cuh"
#include "gpu/device_buffer.cuh"
#include "gpu/device_query.hpp"
#include "gpu/skycube/mdmc_gpu.hpp"
#include "gpu/skycube/mdmc_gpu_kept.cuh"
#include "templates/skycube/quad_tree.hpp"
#include "templates/skycube/skycube_policy.hpp"

namespace sextant::skycube {
namespace detail {
namespace {

using gpu::DeviceTimes;

constexpr unsigned full_warp = 0xffffffffu;
constexpr int block_threads = policy::Gpu::mdmc_block_threads;

double elapsed(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  SEXTANT_CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
  return static_cast<double>(ms) * 1e-3;
}
constexpr int warps_per_block = block_threads / 32;

// Bitmaps per point: strict, dominated, reachable.
constexpr std::size_t bitmaps_per_point = 3;

// Bitmap words (32 bits) for masks 0 .. 2^d - 1.
constexpr std::size_t bitmap_words(int d) noexcept {
  return d <= 5 ? 1 : std::size_t{1} << (d - 5);
}

struct KernelArgs {
  const Mask* median;
  const Mask* quartile;
  const Mask* octile;
  const float* rows;
  std::uint32_t leaves;  // |S+|
  int stride;            // floats per padded row
  int d;
  int max_level;
  float minima[max_skycube_columns];  // per column, the tree's smallest value
  std::uint32_t first;                // leaf position of the batch's first point
  std::uint32_t out_words;            // HashCube words per point
  Word* out;                          // out_words per point of the batch
  std::uint32_t*
      global_bitmaps;  // bitmaps_per_point * bitmap_words(d) per block; only without shared bitmaps
};

// Bits are read while other warps set them (monotone, so a stale 0 only costs work): relaxed
// atomic loads keep that well defined (and quiet under compute-sanitizer racecheck).
__device__ __forceinline__ std::uint32_t load_word(std::uint32_t* bits, Mask m) {
  return cuda::atomic_ref<std::uint32_t, cuda::thread_scope_block>(bits[m >> 5])
      .load(cuda::memory_order_relaxed);
}
__device__ __forceinline__ bool test_bit(std::uint32_t* bits, Mask m) {
  return (load_word(bits, m) >> (m & 31)) & 1u;
}
__device__ __forceinline__ void set_bit(std::uint32_t* bits, Mask m) {
  const std::uint32_t bit = 1u << (m & 31);
  if ((load_word(bits, m) & bit) == 0) atomicOr(&bits[m >> 5], bit);  // read first: most are set already
}

__device__ __forceinline__ Mask better(Mask qm, Mask qq, Mask qo, Mask pm, Mask pq, Mask po) {
  const Mask same_half = ~(qm ^ pm);
  const Mask same_quarter = same_half & ~(qq ^ pq);
  return (~qm & pm) | (same_half & ~qq & pq) | (same_quarter & ~qo & po);
}

// ORs `bits` into word w, reading first: late in a point's refine most are set already.
__device__ __forceinline__ void or_word(std::uint32_t* words, Mask w, std::uint32_t bits) {
  const std::uint32_t have =
      cuda::atomic_ref<std::uint32_t, cuda::thread_scope_block>(words[w]).load(cuda::memory_order_relaxed);
  if ((bits & ~have) != 0) atomicOr(&words[w], bits);
}

// Bit i set iff i is a submask of x (x < 32): each set bit j of x doubles the pattern upwards.
__device__ __forceinline__ std::uint32_t low_submasks(Mask x) {
  std::uint32_t pattern = 1;
  for (int j = 0; j < 5; ++j)
    if ((x >> j) & 1u) pattern |= pattern << (1 << j);
  return pattern;
}

// The t-th submask of `mask` (bits of t deposited into the set bits of mask).
__device__ __forceinline__ Mask deposit(std::uint32_t t, Mask mask) {
  Mask r = 0;
  for (Mask m = mask; m != 0 && t != 0; m &= m - 1, t >>= 1)
    if (t & 1u) r |= m & (~m + 1);
  return r;
}

// Downward closure of `bits` (see the file comment); every thread of the block calls it.
__device__ void close_down(std::uint32_t* bits, int d, std::size_t words) {
  constexpr std::uint32_t high[5] = {0xAAAAAAAAu, 0xCCCCCCCCu, 0xF0F0F0F0u, 0xFF00FF00u, 0xFFFF0000u};
  const int in_word = d < 5 ? d : 5;
  for (std::size_t k = threadIdx.x; k < words; k += blockDim.x) {
    std::uint32_t w = bits[k];
    for (int j = 0; j < in_word; ++j) w |= (w & high[j]) >> (1 << j);
    bits[k] = w;
  }
  __syncthreads();
  for (int j = 5; j < d; ++j) {
    const std::size_t h = std::size_t{1} << (j - 5);
    // Half the words are targets (bit h clear); each reads its partner, which no one writes now.
    for (std::size_t t = threadIdx.x; t < words / 2; t += blockDim.x) {
      const std::size_t k = (t / h) * 2 * h + t % h;
      bits[k] |= bits[k + h];
    }
    __syncthreads();
  }
}

// reachable = the up-closure of the open subspaces: not dominated, not strictly dominated (strict
// is closed), not surely in p's skyline (the submasks of `sure`, the columns where p holds the
// minimum). Every thread of the block calls it; it ends with a barrier.
__device__ void rebuild_reachable(const std::uint32_t* strict, const std::uint32_t* dominated,
                                  std::uint32_t* reachable, int d, std::size_t words, Mask sure) {
  constexpr std::uint32_t high[5] = {0xAAAAAAAAu, 0xCCCCCCCCu, 0xF0F0F0F0u, 0xFF00FF00u, 0xFFFF0000u};
  const int in_word = d < 5 ? d : 5;
  const std::uint32_t valid = d >= 5 ? ~0u : (1u << (1u << d)) - 1;
  const Mask sure_high = sure >> 5;
  const std::uint32_t sure_low = low_submasks(sure & 31);
  for (std::size_t k = threadIdx.x; k < words; k += blockDim.x) {
    const std::uint32_t settled_sure = (k & ~sure_high) == 0 ? sure_low : 0u;
    std::uint32_t w = ~(dominated[k] | strict[k] | settled_sure) & valid;
    for (int j = 0; j < in_word; ++j) w |= (w & ~high[j]) << (1 << j);
    reachable[k] = w;
  }
  __syncthreads();
  for (int j = 5; j < d; ++j) {
    const std::size_t h = std::size_t{1} << (j - 5);
    for (std::size_t t = threadIdx.x; t < words / 2; t += blockDim.x) {
      const std::size_t k = (t / h) * 2 * h + t % h;
      reachable[k + h] |= reachable[k];
    }
    __syncthreads();
  }
}

template <bool SharedBitmaps>
__global__ void __launch_bounds__(block_threads) mdmc_kernel(KernelArgs a) {
  extern __shared__ std::uint32_t shared_bitmaps[];
  const std::size_t words = bitmap_words(a.d);
  std::uint32_t* strict =
      SharedBitmaps ? shared_bitmaps : a.global_bitmaps + bitmaps_per_point * words * blockIdx.x;
  std::uint32_t* dominated = strict + words;
  std::uint32_t* reachable = dominated + words;
  const std::uint32_t i = a.first + blockIdx.x;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int warp = static_cast<int>(threadIdx.x >> 5);
  const Mask full = a.d >= 32 ? ~Mask{0} : (Mask{1} << a.d) - 1;

  // dominated starts with the empty subspace and the levels above max_level (never wanted: the
  // cube ignores their bits), so they keep no leaf alive.
  for (std::size_t k = threadIdx.x; k < words; k += blockDim.x) {
    std::uint32_t beyond = k == 0 ? 1u : 0u;
    for (int b = 0; b < 32; ++b)
      if (__popc(static_cast<unsigned>(k)) + __popc(b) > a.max_level) beyond |= 1u << b;
    strict[k] = 0;
    dominated[k] = beyond;
  }
  const Mask pm = a.median[i], pq = a.quartile[i], po = a.octile[i];
  const float p_value = lane < a.d ? a.rows[std::size_t{i} * a.stride + lane] : 0.0f;
  const Mask sure = __ballot_sync(full_warp, lane < a.d && p_value == a.minima[lane]);
  __syncthreads();

  // FILTER: label-only strict dominance. better(p, p) == 0, so p never counts itself.
  for (std::uint32_t k = threadIdx.x; k < a.leaves; k += blockDim.x) {
    const Mask b = better(a.median[k], a.quartile[k], a.octile[k], pm, pq, po);
    if (b != 0) set_bit(strict, b);
  }
  __syncthreads();
  close_down(strict, a.d, words);
  rebuild_reachable(strict, dominated, reachable, a.d, words, sure);

  // REFINE: rounds of block_threads leaves, a warp's 32 at a time (warp-uniform, so every vote
  // has all lanes active); `reachable` is refreshed after twice as many rounds each time (a
  // refresh is a few block barriers per column: a fixed interval made runs on distinct data, where
  // few subspaces settle late, up to 1.4x slower), and the refine stops when
  // nothing is open any more.
  constexpr std::uint32_t round = warps_per_block * 32;
  const auto by_size = static_cast<std::uint32_t>(words / policy::Gpu::mdmc_rebuild_words_per_round);
  std::uint32_t rounds =
      by_size > policy::Gpu::mdmc_rebuild_rounds ? by_size : policy::Gpu::mdmc_rebuild_rounds;
  for (std::uint64_t start = 0; start < a.leaves && test_bit(reachable, full);
       start += std::uint64_t{rounds} * round, rounds = rounds < (1u << 20) ? 2 * rounds : rounds) {
    for (std::uint32_t r = 0; r < rounds; ++r) {
      const std::uint64_t first_leaf =
          start + std::uint64_t{r} * round + static_cast<std::uint32_t>(warp) * 32;
      if (first_leaf >= a.leaves) break;
      const auto base = static_cast<std::uint32_t>(first_leaf);
      const std::uint32_t k = base + static_cast<std::uint32_t>(lane);
      bool need = false;
      if (k < a.leaves && k != i) {
        const Mask worse = better(pm, pq, po, a.median[k], a.quartile[k], a.octile[k]);
        need = test_bit(reachable, full & ~worse);  // q dominates p only in submasks of that
      }
      for (unsigned pending = __ballot_sync(full_warp, need); pending != 0; pending &= pending - 1) {
        const std::uint32_t q = base + static_cast<std::uint32_t>(__ffs(pending) - 1);
        const float v = lane < a.d ? a.rows[std::size_t{q} * a.stride + lane] : 0.0f;
        const Mask le = __ballot_sync(full_warp, lane < a.d && v <= p_value);
        const Mask eq = __ballot_sync(full_warp, lane < a.d && v == p_value);
        const Mask lt = le & ~eq;
        if (lt == 0) continue;  // q is nowhere better: duplicates of p, or worse somewhere only
        // One read broadcast, so the whole warp takes the same branch: p strictly dominated in
        // le (so in all q could add), or no open subspace within le.
        const bool settled =
            __shfl_sync(full_warp, lane == 0 ? test_bit(strict, le) || !test_bit(reachable, le) : false, 0);
        if (settled) continue;
        if (lane == 0) set_bit(strict, lt);
        if (eq == 0) continue;
        // Ties: every m <= le that is not a submask of eq (so meets lt) is dominated, a word at a
        // time: word w (m's high bits, a submask of le's) takes the submasks of le's low five
        // bits, less those of eq's where w is also a submask of eq's high bits. 2^|le >> 5| word
        // ORs spread over the lanes, not 2^|le| bits.
        const Mask le_high = le >> 5;
        const Mask eq_high = eq >> 5;
        const std::uint32_t le_low = low_submasks(le & 31);
        const std::uint32_t eq_low = low_submasks(eq & 31);
        const std::uint32_t count = 1u << __popc(le_high);
        for (std::uint32_t t = static_cast<std::uint32_t>(lane); t < count; t += 32) {
          const Mask w = deposit(t, le_high);
          or_word(dominated, w, (w & ~eq_high) == 0 ? le_low & ~eq_low : le_low);
        }
      }
    }
    __syncthreads();
    close_down(strict, a.d, words);
    rebuild_reachable(strict, dominated, reachable, a.d, words, sure);
  }
  __syncthreads();
  close_down(strict, a.d, words);
  for (std::size_t k = threadIdx.x; k < words; k += blockDim.x) dominated[k] |= strict[k];
  __syncthreads();

  // HashCube word w holds subspaces 32w + 1 .. 32w + 32: bitmap bits shifted down by one.
  Word* out = a.out + std::size_t{blockIdx.x} * a.out_words;
  for (std::size_t w = threadIdx.x; w < a.out_words; w += blockDim.x) {
    const std::uint32_t next = w + 1 < words ? dominated[w + 1] : 0u;
    out[w] = (dominated[w] >> 1) | (next << 31);
  }
}

}  // namespace

// Everything one run keeps on the device; built from the tree once.
class MdmcGpuState {
 public:
  MdmcGpuState(const QuadTree& tree, int max_level, const MdmcGpuOptions& options)
      : tree_(&tree), max_level_(max_level), ordinal_(options.gpu_ordinal) {
    gpu::ScopedDevice scope(ordinal_);
    const int d = tree.dims();
    const std::size_t s = tree.size();
    words_ = bitmap_words(d);
    out_words_ = words_for(d);
    shared_bytes_ = bitmaps_per_point * words_ * sizeof(std::uint32_t);
    int optin = 0;
    SEXTANT_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, ordinal_));
    global_bitmaps_ = options.force_global_bitmaps || shared_bytes_ > static_cast<std::size_t>(optin);
    if (!global_bitmaps_)
      SEXTANT_CUDA_CHECK(cudaFuncSetAttribute(mdmc_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(shared_bytes_)));

    // Batch: bounded output (and global bitmap) memory, large enough to fill the device.
    const std::size_t per_point =
        out_words_ * sizeof(Word) + (global_bitmaps_ ? shared_bytes_ : std::size_t{0});
    batch_ = options.batch_points != 0
                 ? options.batch_points
                 : std::clamp<std::size_t>((std::size_t{64} << 20) / per_point, 1, 16384);
    batch_ = std::max<std::size_t>(1, std::min(batch_, s));
    insert_threads_ = std::max(1, options.insert_threads);

    median_ = gpu::DeviceBuffer<Mask>(s);
    quartile_ = gpu::DeviceBuffer<Mask>(s);
    octile_ = gpu::DeviceBuffer<Mask>(s);
    const std::size_t row_floats = s * static_cast<std::size_t>(tree.stride());
    rows_ = gpu::DeviceBuffer<float>(row_floats);
    for (auto& o : out_) o = gpu::DeviceBuffer<Word>(batch_ * out_words_);
    if (global_bitmaps_) bitmaps_ = gpu::DeviceBuffer<std::uint32_t>(batch_ * bitmaps_per_point * words_);
    SEXTANT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    for (auto& e : done_) SEXTANT_CUDA_CHECK(cudaEventCreate(&e));
    for (auto& e : started_) SEXTANT_CUDA_CHECK(cudaEventCreate(&e));
    for (auto& e : computed_) SEXTANT_CUDA_CHECK(cudaEventCreate(&e));

    SEXTANT_CUDA_CHECK(cudaEventRecord(started_[0], stream_));
    SEXTANT_CUDA_CHECK(cudaMemcpyAsync(median_.data(), tree.median_masks().data(), s * sizeof(Mask),
                                       cudaMemcpyHostToDevice, stream_));
    SEXTANT_CUDA_CHECK(cudaMemcpyAsync(quartile_.data(), tree.quartile_masks().data(), s * sizeof(Mask),
                                       cudaMemcpyHostToDevice, stream_));
    SEXTANT_CUDA_CHECK(cudaMemcpyAsync(octile_.data(), tree.octile_masks().data(), s * sizeof(Mask),
                                       cudaMemcpyHostToDevice, stream_));
    SEXTANT_CUDA_CHECK(cudaMemcpyAsync(rows_.data(), tree.rows(), row_floats * sizeof(float),
                                       cudaMemcpyHostToDevice, stream_));
    SEXTANT_CUDA_CHECK(cudaEventRecord(done_[0], stream_));
    SEXTANT_CUDA_CHECK(cudaStreamSynchronize(stream_));  // pageable sources: keep the copies simple
    times_.upload += elapsed(started_[0], done_[0]);
    if (options.time_log) options.time_log->add(times_);
    time_log_ = options.time_log;
    // What the rest of the run allocates on the device beside the kept words (CUDA's own
    // scratch, the other hooks of the process): kept words leave that much free.
    constexpr std::size_t spare_bytes = std::size_t{256} << 20;
    if (options.keep_on_device)
      kept_ = KeptOnGpu::make(tree, max_level, ordinal_, spare_bytes, options.kept_group_items);
  }

  ~MdmcGpuState() {  // no throws; the device buffers free themselves
    cudaSetDevice(ordinal_);
    if (stream_ != nullptr) cudaStreamSynchronize(stream_);
    for (Word* h : host_)
      if (h != nullptr) cudaFreeHost(h);
    for (cudaEvent_t* events : {done_, started_, computed_})
      for (int k = 0; k < 2; ++k)
        if (events[k] != nullptr) cudaEventDestroy(events[k]);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  MdmcGpuState(const MdmcGpuState&) = delete;
  MdmcGpuState& operator=(const MdmcGpuState&) = delete;

  bool serves(const QuadTree& tree, int max_level) const noexcept {
    return tree_ == &tree && max_level_ == max_level && tree.size() == median_.size();
  }
  bool global_bitmaps() const noexcept { return global_bitmaps_; }
  const DeviceTimes& times() const noexcept { return times_; }

  bool keeps_words() const noexcept { return kept_ != nullptr; }

  void process(std::size_t begin, std::size_t end, HashCubePart& out) {
    gpu::ScopedDevice scope(ordinal_);
    if (kept_) {
      keep(begin, end, out);
      return;
    }
    download(begin, end, out);
  }

 private:
  // Batches of points into the kept words, back to back on the stream: no host round trip
  // until the range ends.
  void keep(std::size_t begin, std::size_t end, HashCubePart& out) {
    if (kept_->failed())
      throw Error(ErrorKind::unsupported, "mdmc-gpu: GPU " + std::to_string(ordinal_) +
                                              " lost the words it kept when it failed earlier in this run");
    if (out.kept() != kept_.get()) {
      if (out.kept() != nullptr || attached_)
        throw Error::internal("mdmc-gpu: one hook's kept words serve one HashCubePart");
      out.keep(kept_);
      attached_ = true;
    }
    try {
      SEXTANT_CUDA_CHECK(cudaEventRecord(started_[0], stream_));
      int slot = 0;
      for (std::size_t first = begin; first < end; first += batch_, slot ^= 1) {
        const std::size_t count = std::min(batch_, end - first);
        launch(first, count, slot);
        kept_->keep(out_[slot].data(), out_words_, first, count, stream_);
      }
      SEXTANT_CUDA_CHECK(cudaEventRecord(computed_[0], stream_));
      SEXTANT_CUDA_CHECK(cudaStreamSynchronize(stream_));
      DeviceTimes range;
      range.kernels = elapsed(started_[0], computed_[0]);
      times_ += range;
      if (time_log_) time_log_->add(range);
      kept_->finish(begin, end);
    } catch (...) {
      kept_->undo(begin, end, stream_);
      throw;
    }
  }

  // Batches of points, double buffered: batch b + 1 runs while the host inserts batch b.
  void download(std::size_t begin, std::size_t end, HashCubePart& out) {
    if (host_[0] == nullptr)
      for (auto& h : host_)
        SEXTANT_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&h), batch_ * out_words_ * sizeof(Word)));
    const auto ids = tree_->ids();
    std::size_t pending_begin = 0, pending_count = 0;
    int pending_slot = -1;
    auto insert_pending = [&] {
      if (pending_slot < 0) return;
      SEXTANT_CUDA_CHECK(cudaEventSynchronize(done_[pending_slot]));
      DeviceTimes batch;
      batch.kernels = elapsed(started_[pending_slot], computed_[pending_slot]);
      batch.download = elapsed(computed_[pending_slot], done_[pending_slot]);
      times_ += batch;
      if (time_log_) time_log_->add(batch);
      insert_downloaded(out, ids.subspan(pending_begin, pending_count),
                        {host_[pending_slot], pending_count * out_words_}, insert_threads_);
      pending_slot = -1;
    };
    int slot = 0;
    for (std::size_t first = begin; first < end; first += batch_, slot ^= 1) {
      const std::size_t count = std::min(batch_, end - first);
      SEXTANT_CUDA_CHECK(cudaEventRecord(started_[slot], stream_));
      launch(first, count, slot);
      SEXTANT_CUDA_CHECK(cudaEventRecord(computed_[slot], stream_));
      SEXTANT_CUDA_CHECK(cudaMemcpyAsync(host_[slot], out_[slot].data(), count * out_words_ * sizeof(Word),
                                         cudaMemcpyDeviceToHost, stream_));
      SEXTANT_CUDA_CHECK(cudaEventRecord(done_[slot], stream_));
      insert_pending();
      pending_begin = first;
      pending_count = count;
      pending_slot = slot;
    }
    insert_pending();
  }

  // The kernel for leaf positions [first, first + count) into out_[slot], on the stream.
  void launch(std::size_t first, std::size_t count, int slot) {
    KernelArgs a{};
    a.median = median_.data();
    a.quartile = quartile_.data();
    a.octile = octile_.data();
    a.rows = rows_.data();
    a.leaves = static_cast<std::uint32_t>(tree_->size());
    a.stride = tree_->stride();
    a.d = tree_->dims();
    a.max_level = max_level_;
    std::copy(tree_->minima().begin(), tree_->minima().end(), a.minima);
    a.first = static_cast<std::uint32_t>(first);
    a.out_words = static_cast<std::uint32_t>(out_words_);
    a.out = out_[slot].data();
    a.global_bitmaps = bitmaps_.data();
    const dim3 grid(static_cast<unsigned>(count));
    if (global_bitmaps_)
      mdmc_kernel<false><<<grid, block_threads, 0, stream_>>>(a);
    else
      mdmc_kernel<true><<<grid, block_threads, shared_bytes_, stream_>>>(a);
    SEXTANT_CUDA_CHECK_LAUNCH();
  }

  const QuadTree* tree_;
  int max_level_;
  int ordinal_;
  std::size_t words_ = 0;
  std::size_t out_words_ = 0;
  std::size_t shared_bytes_ = 0;
  std::size_t batch_ = 1;
  int insert_threads_ = 1;
  bool global_bitmaps_ = false;
  gpu::DeviceBuffer<Mask> median_, quartile_, octile_;
  gpu::DeviceBuffer<float> rows_;
  gpu::DeviceBuffer<Word> out_[2];
  gpu::DeviceBuffer<std::uint32_t> bitmaps_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t done_[2] = {nullptr, nullptr};      // per slot: batch downloaded
  cudaEvent_t started_[2] = {nullptr, nullptr};   // per slot: kernel about to start
  cudaEvent_t computed_[2] = {nullptr, nullptr};  // per slot: kernel done
  DeviceTimes times_;
  std::shared_ptr<gpu::DeviceTimeLog> time_log_;
  Word* host_[2] = {nullptr, nullptr};  // page-locked, made by the first download()
  std::shared_ptr<KeptOnGpu> kept_;     // null: every batch is downloaded and inserted
  bool attached_ = false;               // kept_ handed to a part
};

}  // namespace detail

MdmcGpu::MdmcGpu(const MdmcGpuOptions& options) : options_(options) {
  const int devices = gpu::device_count();
  if (options.gpu_ordinal < 0 || options.gpu_ordinal >= devices)
    throw Error::argument("gpu_ordinal", std::to_string(options.gpu_ordinal),
                          "0.." + std::to_string(devices - 1), "no such CUDA device");
}

void MdmcGpu::prepare(const MdmcShared& shared) {
  const QuadTree& tree = shared.tree;
  if (tree.size() > 0xffffffffu) throw Error::unsupported("mdmc-gpu: more than 2^32 - 1 points in S+");
  if (!state_ || !state_->serves(tree, shared.max_level)) {
    state_.reset();  // free the old run's buffers first
    state_ = std::make_shared<detail::MdmcGpuState>(tree, shared.max_level, options_);
  }
}

void MdmcGpu::process(const MdmcTasks<MdmcShared>& tasks, HashCubePart& out) {
  if (tasks.begin >= tasks.end) return;
  prepare(tasks.shared);
  state_->process(tasks.begin, tasks.end, out);
}

bool MdmcGpu::used_global_bitmaps() const noexcept {
  return state_ && state_->global_bitmaps();
}

bool MdmcGpu::kept_words() const noexcept {
  return state_ && state_->keeps_words();
}

}  // namespace sextant::skycube

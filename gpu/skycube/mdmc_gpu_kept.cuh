// The MDMC GPU hook's kept words (templates/skycube/kept_words.hpp): every point's words stay in
// device memory instead of crossing PCIe batch by batch and being appended on the host, and the
// grouping by key happens on the GPUs at the end (HashCube::from_parts calls collect).
//
// Layout. The stored word positions (stored_positions: all of them for a full skycube) are cut
// into groups of `group_width`; group c is a block of S rows (S = |S+|, one row per point, in
// ascending id order: row r is the point of rank r) of its width, so a group is contiguous. A
// batch's words go to their rows with the bits of missing or uncomputed subspaces set; rows of
// points computed elsewhere stay all ones, which the cube never stores.
//
// Collect. Group c belongs to GPU c mod G. Its owner ANDs the other GPUs' blocks of c into its own
// (peer copies; a row is all ones on every GPU but the one that computed it), compacts the words
// that are not all ones into (position in the group, word) keys with the row as value, in row
// order, sorts them stably by key (CUB) and run-length encodes the keys: a word position's keys
// come out ascending with their ids ascending. The ids go over its own block, which nothing reads
// any more; the host workers then copy each word position's ids into the cube through page-locked
// slots of their own.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "gpu/device_buffer.cuh"
#include "templates/skycube/kept_words.hpp"
#include "templates/skycube/quad_tree.hpp"

namespace sextant::skycube::detail {

class KeptOnGpu final : public KeptWords {
 public:
  // Room for every point of `tree` on GPU `ordinal`, or nullptr when the device lacks it, after
  // leaving `spare_bytes` free for the hook's own buffers; groups of about `group_items` words
  // (0: policy::Gpu::KeptWords::group_items).
  static std::shared_ptr<KeptOnGpu> make(const QuadTree& tree, int max_level, int ordinal,
                                         std::size_t spare_bytes, std::size_t group_items = 0);
  ~KeptOnGpu() override;
  KeptOnGpu(const KeptOnGpu&) = delete;
  KeptOnGpu& operator=(const KeptOnGpu&) = delete;

  // Enqueues on `stream` the scatter of a batch: `out` holds `count` rows of `out_words` words (the
  // kernel's output for leaf positions first .. first + count - 1).
  void keep(const Word* out, std::size_t out_words, std::size_t first, std::size_t count,
            cudaStream_t stream);
  // [begin, end) is complete (its stream has finished).
  void finish(std::size_t begin, std::size_t end);
  // A chunk that failed part-way: its rows back to all ones once `stream` (where its batches went)
  // is done. Loses everything if that fails too.
  void undo(std::size_t begin, std::size_t end, cudaStream_t stream) noexcept;
  // Whether what it kept is lost (no device call).
  bool failed() const noexcept;

  bool intact() override;
  std::vector<LeafRange> done() const override;
  void collect(std::span<KeptWords* const> all, KeptWordsSink& sink, TeamRef team) override;

  int ordinal() const noexcept { return ordinal_; }

 private:
  struct Group;  // one group's runs on the host after its sort (mdmc_gpu_kept.cu)
  KeptOnGpu() = default;

  std::size_t width(std::size_t group) const noexcept;
  std::size_t base(std::size_t group) const noexcept { return rows_ * group * group_width_; }
  std::size_t groups() const noexcept { return (positions_.size() + group_width_ - 1) / group_width_; }
  void launch_rows(const Word* out, std::size_t out_words, std::size_t first, std::size_t count,
                   cudaStream_t stream);
  // Step 1 on this GPU: every group it owns among `all`, sorted; their runs into `runs`.
  void sort_owned(std::span<KeptOnGpu* const> all, std::size_t self, std::vector<Group>& runs);

  int ordinal_ = 0;
  std::size_t rows_ = 0;         // |S+|
  std::size_t group_width_ = 1;  // word positions per group
  std::vector<std::uint32_t> positions_;
  gpu::DeviceBuffer<Word> words_;              // the groups' blocks
  gpu::DeviceBuffer<std::uint32_t> rank_;      // per leaf position: its row
  gpu::DeviceBuffer<PointId> id_of_row_;       // per row: the point id
  gpu::DeviceBuffer<std::uint32_t> position_;  // per stored position: its word in a kernel row
  gpu::DeviceBuffer<Word> invalid_;            // per stored position: bits forced to one
  // The sort's buffers, sized for the widest group.
  gpu::DeviceBuffer<std::uint64_t> keys_[2];
  gpu::DeviceBuffer<std::uint32_t> values_[2];
  gpu::DeviceBuffer<std::uint32_t> tile_counts_;
  gpu::DeviceBuffer<std::uint32_t> tile_offsets_;
  gpu::DeviceBuffer<std::uint32_t> runs_found_;
  gpu::DeviceBuffer<unsigned char> temp_;
  cudaStream_t stream_ = nullptr;

  mutable std::mutex mutex_;
  std::vector<LeafRange> done_;
  bool lost_ = false;
};

}  // namespace sextant::skycube::detail

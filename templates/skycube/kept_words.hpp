// Words a device keeps where it computed them (in GPU memory) instead of appending them to its
// HashCubePart during the run: no bitmap crosses PCIe per batch and no host core inserts it, and
// the grouping by key, which the host does at the memory system's pace (HashCube::from_parts), is
// done by the device at its own. The part holds a handle; from_parts collects every part's kept
// words at once, so that devices may deal word positions out among themselves, and merges them
// with the pairs the parts hold.
//
// A device that fails loses what it kept: it is no longer intact(), and the template runs its
// done() leaf ranges again elsewhere (mdmc_devices.hpp). A hook that keeps words undoes a chunk
// that throws part-way itself (HashCubePart::erase_if only reaches the pairs the part holds).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/subspace.hpp"
#include "core/task_team.hpp"

namespace sextant::skycube {

using Word = std::uint32_t;

// Where a collector puts one word position's index; called concurrently for distinct positions,
// once each.
class KeptWordsSink {
 public:
  virtual ~KeptWordsSink() = default;
  // Word position `position` has keys (ascending, never all ones) and counts[k] ids under keys[k];
  // returns where its sum(counts) ids go, ascending within each key, key after key.
  virtual std::span<PointId> word(std::size_t position, std::span<const Word> keys,
                                  std::span<const std::uint32_t> counts) = 0;
};

class KeptWords {
 public:
  using LeafRange = std::pair<std::size_t, std::size_t>;  // [begin, end) of the tree's leaf positions

  virtual ~KeptWords() = default;
  // False once the device failed and what it kept is lost (checked on the device: may wait for it).
  virtual bool intact() = 0;
  // The leaf ranges whose points it holds, every one complete.
  virtual std::vector<LeafRange> done() const = 0;
  // Hands the kept words of every object of `all` (this one among them; all of this one's type)
  // to `sink`, with the workers of `team` for the host's share. Throws Error on a device failure.
  virtual void collect(std::span<KeptWords* const> all, KeptWordsSink& sink, TeamRef team) = 0;
};

}  // namespace sextant::skycube

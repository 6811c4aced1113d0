// The template's side of kept words (kept_words.hpp): finding what a failed device lost, and
// running those leaf ranges again as one range.
#include <algorithm>
#include <utility>

#include "templates/skycube/mdmc_devices.hpp"

namespace sextant::skycube::detail {

std::vector<KeptWords::LeafRange> take_lost(std::vector<HashCubePart>& parts) {
  std::vector<KeptWords::LeafRange> lost;
  for (HashCubePart& part : parts) {
    KeptWords* kept = part.kept();
    if (kept == nullptr || kept->intact()) continue;
    const std::vector<KeptWords::LeafRange> done = kept->done();
    lost.insert(lost.end(), done.begin(), done.end());
    part.keep(nullptr);
  }
  std::sort(lost.begin(), lost.end());
  lost.erase(std::remove_if(lost.begin(), lost.end(), [](const auto& r) { return r.first >= r.second; }),
             lost.end());
  return lost;
}

JoinedRanges::JoinedRanges(std::vector<KeptWords::LeafRange> ranges) : ranges_(std::move(ranges)) {
  starts_.reserve(ranges_.size() + 1);
  starts_.push_back(0);
  for (const auto& [begin, end] : ranges_) starts_.push_back(starts_.back() + (end - begin));
}

}  // namespace sextant::skycube::detail

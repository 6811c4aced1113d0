// Kept words held in host memory (templates/skycube/kept_words.hpp), for the tests of what the
// CPU can check without a GPU: HashCube::from_parts merging kept words with the parts' pairs, and
// the MDMC template running again what a failed device kept. Its collect is the plain one: every
// object's (key, id) pairs of a word position, sorted.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "templates/skycube/hash_cube.hpp"
#include "templates/skycube/kept_words.hpp"

namespace sextant::testing {

using skycube::HashCubePart;
using skycube::KeptWords;
using skycube::KeptWordsSink;
using skycube::Word;

class HostKeptWords final : public KeptWords {
 public:
  // The pairs of `part` (its words are as stored: never all ones), for leaf range `done`.
  void take(const HashCubePart& part, LeafRange done) {
    part.for_each_entry(
        [&](std::size_t position, Word key, PointId id) { pairs_[position].emplace_back(key, id); });
    done_.push_back(done);
  }
  void add(std::size_t position, Word key, PointId id) { pairs_[position].emplace_back(key, id); }
  void lose() { lost_ = true; }

  bool intact() override { return !lost_; }
  std::vector<LeafRange> done() const override { return done_; }
  void collect(std::span<KeptWords* const> all, KeptWordsSink& sink, TeamRef) override {
    std::map<std::size_t, std::vector<std::pair<Word, PointId>>> merged;
    for (KeptWords* k : all)
      for (const auto& [position, pairs] : dynamic_cast<HostKeptWords&>(*k).pairs_)
        merged[position].insert(merged[position].end(), pairs.begin(), pairs.end());
    for (auto& [position, pairs] : merged) {
      std::sort(pairs.begin(), pairs.end());
      std::vector<Word> keys;
      std::vector<std::uint32_t> counts;
      for (const auto& [key, id] : pairs) {
        if (keys.empty() || keys.back() != key) {
          keys.push_back(key);
          counts.push_back(0);
        }
        ++counts.back();
      }
      const std::span<PointId> ids = sink.word(position, keys, counts);
      for (std::size_t i = 0; i < pairs.size(); ++i) ids[i] = pairs[i].second;
    }
  }

 private:
  std::map<std::size_t, std::vector<std::pair<Word, PointId>>> pairs_;
  std::vector<LeafRange> done_;
  bool lost_ = false;
};

}  // namespace sextant::testing

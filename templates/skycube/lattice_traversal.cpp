#include "templates/skycube/lattice_traversal.hpp"

#include <algorithm>
#include <bit>
#include <new>
#include <numeric>
#include <string>

#include "core/error.hpp"

namespace sextant::skycube::detail {
namespace {

std::size_t input_size(const CuboidOutput& out) noexcept {
  return out.skyline.size() + out.extended_only.size();
}

constexpr std::uint64_t many_values = (std::uint64_t{1} << 16) + 1;

// The value's bits with -0.0 read as 0.0 (they compare equal).
std::uint32_t bits_of(float x) noexcept {
  return x == 0.0f ? 0u : std::bit_cast<std::uint32_t>(x);
}

std::uint64_t mix(std::uint64_t h, std::uint32_t v) noexcept {
  h ^= v;
  h *= 0xFF51AFD7ED558CCDull;
  return h ^ (h >> 32);
}

// Distinct values of `column`, counted up to many_values.
std::uint64_t distinct_values(const Dataset& data, int column) {
  // At most half full: 4 x many_values slots, fewer for a small dataset.
  const std::size_t slots =
      std::bit_ceil(std::max<std::size_t>(16, std::min<std::size_t>(4 * many_values, 4 * data.size())));
  std::vector<std::uint32_t> table(slots, 0);      // bits + 1 (0: empty; bits never all ones)
  std::uint64_t count = 0;
  for (PointId id = 0; id < data.size() && count < many_values; ++id) {
    const std::uint32_t key = bits_of(data(id, column)) + 1;
    for (std::size_t slot = mix(0, key) & (slots - 1);; slot = (slot + 1) & (slots - 1)) {
      if (table[slot] == key) break;
      if (table[slot] == 0) {
        table[slot] = key;
        ++count;
        break;
      }
    }
  }
  return count;
}

}  // namespace

LatticeRun::LatticeRun(const Dataset& data, int max_level, CandidateRule rule)
    : data_(data), d_(data.dims()), max_level_(max_level), rule_(rule), start_(0) {
  check_skycube_shape(d_, max_level);
  positions_ = stored_positions(d_, max_level_);
  distinct_values_.resize(static_cast<std::size_t>(d_));
  for (int c = 0; c < d_; ++c) distinct_values_[static_cast<std::size_t>(c)] = distinct_values(data_, c);
  // Levels above max_level while their cuboids number at most those asked for.
  const auto cuboids = [&](int l) { return masks_at_level(d_, l).size(); };
  std::size_t asked = 0;
  for (int l = 1; l <= max_level_; ++l) asked += cuboids(l);
  start_ = max_level_;
  for (std::size_t extra = 0; start_ < d_ - 1 && (extra += cuboids(start_ + 1)) <= asked;) ++start_;
  start_ = std::min(start_, d_ - 1);  // 0 for d = 1: the top is the only cuboid
  levels_.resize(static_cast<std::size_t>(d_) + 1);
  parents_.resize(static_cast<std::size_t>(d_) + 1);
  rank_.assign(std::size_t{1} << d_, 0);
}

void LatticeRun::set_top(CuboidOutput top) {
  extended_.resize(top.skyline.size() + top.extended_only.size());
  std::merge(top.skyline.begin(), top.skyline.end(), top.extended_only.begin(), top.extended_only.end(),
             extended_.begin());
  position_.assign(data_.size(), 0);
  for (std::size_t i = 0; i < extended_.size(); ++i) position_[extended_[i]] = static_cast<std::uint32_t>(i);
  try {
    members_.assign(extended_.size() * positions_.size(), 0);
  } catch (const std::bad_alloc&) {
    throw Error(ErrorKind::resource,
                "skycube: " + std::to_string(extended_.size()) + " extended-skyline points x " +
                    std::to_string(positions_.size()) +
                    " membership words do not fit in host memory (d = " + std::to_string(d_) + ")");
  }
  levels_[static_cast<std::size_t>(d_)].assign(1, std::move(top));
  rank_[full_mask(d_)] = 0;
}

const std::vector<Mask>& LatticeRun::plan(int l) {
  const auto lvl = static_cast<std::size_t>(l);
  order_ = masks_at_level(d_, l);
  for (std::size_t r = 0; r < order_.size(); ++r) rank_[order_[r]] = static_cast<std::uint32_t>(r);
  levels_[lvl].assign(order_.size(), CuboidOutput{});
  parents_[lvl].assign(order_.size(), 0);
  const std::vector<CuboidOutput>& above = levels_[lvl + 1];
  std::vector<std::size_t> sizes(order_.size());
  for (std::size_t r = 0; r < order_.size(); ++r) {
    const Mask m = order_[r];
    Mask best = 0;
    std::size_t best_size = 0;
    if (l == start_ && l < d_ - 1) {  // from S+(P): the levels in between are skipped
      parents_[lvl][r] = full_mask(d_);
      sizes[r] = extended_.size();
      continue;
    }
    for (Mask free = full_mask(d_) & ~m; free != 0; free &= free - 1) {
      const Mask parent = m | (free & (~free + 1));
      const std::size_t size = input_size(above[rank_[parent]]);
      if (best == 0 || size < best_size || (size == best_size && parent < best)) {
        best = parent;
        best_size = size;
      }
    }
    parents_[lvl][r] = best;
    sizes[r] = best_size;
  }
  // Largest inputs first: the longest tasks start early (LPT), which balances a level better.
  std::stable_sort(order_.begin(), order_.end(),
                   [&](Mask a, Mask b) { return sizes[rank_[a]] > sizes[rank_[b]]; });
  return order_;
}

CuboidInput LatticeRun::input(Mask subspace, InputScratch& scratch) const {
  const auto lvl = static_cast<std::size_t>(level(subspace));
  const Mask parent = parents_[lvl][rank_[subspace]];
  const std::vector<CuboidOutput>& above = levels_[static_cast<std::size_t>(level(parent))];
  const CuboidOutput& from = above[rank_[parent]];
  std::vector<PointId>& ids = scratch.candidates;
  ids.resize(input_size(from));
  std::merge(from.skyline.begin(), from.skyline.end(), from.extended_only.begin(), from.extended_only.end(),
             ids.begin());
  const Mask others = full_mask(d_) & ~subspace & ~parent;
  if (rule_ == CandidateRule::smallest_parent || others == 0) return CuboidInput{data_, ids, subspace};

  // Keep the points that every other parent holds too: count them per point (branch-free, unlike
  // merging sorted lists), filter, and clear the counts again.
  std::vector<std::uint8_t>& hits = scratch.hits;
  if (hits.size() < extended_.size()) hits.assign(extended_.size(), 0);
  // Raw pointers: byte stores may alias anything, so the compiler would reload vector internals.
  std::uint8_t* const count = hits.data();
  const std::uint32_t* const position = position_.data();
  const auto for_each_other = [&](auto&& f) {
    for (Mask rest = others; rest != 0; rest &= rest - 1) {
      const CuboidOutput& also = above[rank_[subspace | (rest & (~rest + 1))]];
      for (const std::vector<PointId>* list : {&also.skyline, &also.extended_only}) {
        const PointId* id = list->data();
        const PointId* const end = id + list->size();
        for (; id != end; ++id) f(count[position[*id]]);
      }
    }
  };
  for_each_other([](std::uint8_t& c) { ++c; });
  const auto wanted = static_cast<std::uint8_t>(std::popcount(others));
  std::erase_if(ids, [&](PointId id) { return count[position[id]] != wanted; });
  for_each_other([](std::uint8_t& c) { c = 0; });
  return CuboidInput{data_, ids, subspace};
}

bool LatticeRun::tie_heavy(Mask subspace, std::size_t candidates) const noexcept {
  const std::uint64_t limit = 2 * std::uint64_t{candidates};
  std::uint64_t product = 1;
  for (Mask rest = subspace; rest != 0 && product < limit; rest &= rest - 1)
    product *= distinct_values_[static_cast<std::size_t>(std::countr_zero(rest))];
  return candidates >= 64 && product < limit;
}

void group_ties(const CuboidInput& in, InputScratch& scratch) {
  const std::size_t m = in.candidates.size();
  int columns[max_columns];
  int k = 0;
  for (Mask rest = in.subspace; rest != 0; rest &= rest - 1) columns[k++] = std::countr_zero(rest);
  const auto same = [&](const float* a, const float* b) {
    for (int c = 0; c < k; ++c)
      if (a[columns[c]] != b[columns[c]]) return false;
    return true;
  };
  const std::size_t slots = std::bit_ceil(2 * m);
  scratch.table.assign(slots, 0);  // group + 1; 0: empty
  scratch.group.resize(m);
  scratch.representatives.clear();
  for (std::size_t i = 0; i < m; ++i) {
    const float* row = in.data.row(in.candidates[i]);
    std::uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int c = 0; c < k; ++c) h = mix(h, bits_of(row[columns[c]]));
    for (std::size_t slot = h & (slots - 1);; slot = (slot + 1) & (slots - 1)) {
      const std::uint32_t g = scratch.table[slot];
      if (g == 0) {
        scratch.table[slot] = static_cast<std::uint32_t>(scratch.representatives.size()) + 1;
        scratch.group[i] = static_cast<std::uint32_t>(scratch.representatives.size());
        scratch.representatives.push_back(in.candidates[i]);  // candidates ascending: the smallest id
        break;
      }
      if (same(in.data.row(scratch.representatives[g - 1]), row)) {
        scratch.group[i] = g - 1;
        break;
      }
    }
  }
}

void expand_ties(const CuboidInput& in, InputScratch& scratch, CuboidOutput& out) {
  // status per group: 0 excluded, 1 skyline, 2 extended only. Representatives are ascending, and
  // so are the lists of the hook's output: one merge each.
  const std::vector<PointId>& reps = scratch.representatives;
  scratch.status.assign(reps.size(), 0);
  const auto mark = [&](const std::vector<PointId>& ids, std::uint8_t value) {
    std::size_t g = 0;
    for (const PointId id : ids) {
      while (reps[g] != id) ++g;
      scratch.status[g] = value;
    }
  };
  mark(scratch.grouped.skyline, 1);
  mark(scratch.grouped.extended_only, 2);
  CuboidOutput result;
  for (std::size_t i = 0; i < in.candidates.size(); ++i) {
    const std::uint8_t s = scratch.status[scratch.group[i]];
    if (s == 1) result.skyline.push_back(in.candidates[i]);
    if (s == 2) result.extended_only.push_back(in.candidates[i]);
  }
  out = std::move(result);
}

void LatticeRun::release(int l) {
  const auto lvl = static_cast<std::size_t>(l);
  std::vector<CuboidOutput>().swap(levels_[lvl]);
  std::vector<Mask>().swap(parents_[lvl]);
}

void LatticeRun::record_word(int l, std::size_t k) {
  const Mask last = full_mask(d_);
  const std::size_t word = positions_[k];
  const std::size_t stride = positions_.size();
  for (unsigned b = 0; b < 32; ++b) {
    const std::size_t m64 = word * 32 + b + 1;
    if (m64 > last) break;
    const auto m = static_cast<Mask>(m64);
    if (level(m) != l) continue;
    const Word bit = Word{1} << b;
    for (const PointId id : output(m).skyline) members_[std::size_t{position_[id]} * stride + k] |= bit;
  }
}

void LatticeRun::fill_part(std::size_t task, std::size_t tasks, HashCubePart& part) const {
  part = HashCubePart(d_, max_level_);
  const std::size_t n = extended_.size();
  const std::size_t begin = n * task / tasks;
  const std::size_t end = n * (task + 1) / tasks;
  const std::size_t stride = positions_.size();
  // Blocks of points: HashCubePart::insert_batch reads each row once and appends branch-free.
  constexpr std::size_t block = 256;
  std::vector<Word> dominated(block * stride);
  for (std::size_t b = begin; b < end; b += block) {
    const std::size_t count = std::min(block, end - b);
    const Word* in = members_.data() + b * stride;
    for (std::size_t i = 0; i < count * stride; ++i) dominated[i] = ~in[i];
    part.insert_batch(std::span<const PointId>(extended_.data() + b, count), positions_,
                      std::span<const Word>(dominated.data(), count * stride));
  }
}

HashCube LatticeRun::finish_cube(std::vector<HashCubePart> parts, TeamRef team) {
  std::vector<Word>().swap(members_);
  return HashCube::from_parts(d_, data_.size(), max_level_, std::move(parts), std::move(team));
}

}  // namespace sextant::skycube::detail

#include "cpu/skycube/mdmc_cpu.hpp"

#include <algorithm>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "cpu/simd/isa.hpp"

namespace sextant::skycube {
namespace detail {

void MdmcScratch::prepare(int columns, int levels) {
  if (columns == d && levels == max_level) return;
  d = columns;
  max_level = levels;
  const std::size_t subspaces = std::size_t{1} << columns;  // masks 0 .. 2^d - 1
  const std::size_t words64 = std::max<std::size_t>(1, subspaces / 64);
  dominated.assign(words64, 0);
  strict.assign(words64, 0);
  reachable.assign(words64, 0);
  initial.assign(words64, 0);
  skyline.assign(words64, 0);
  // Subspaces above max_level are never wanted: mark them settled from the start (the HashCube
  // forces their bits to 1 anyway), so they never keep a subtree or a dominance test alive.
  for (std::size_t m = 0; m < subspaces; ++m)
    if (m == 0 || level(static_cast<Mask>(m)) > levels) initial[m / 64] |= std::uint64_t{1} << (m % 64);
  memo.assign(subspaces, 0);
  touched.assign(subspaces, 0);
  words.assign(words_for(columns), 0);
}

void check(const MdmcCpuOptions& options) {
  if (options.filter_levels < 1 || options.filter_levels > QuadTree::levels)
    throw Error::argument("filter_levels", std::to_string(options.filter_levels), "1..3");
}

}  // namespace detail

MdmcCpu::MdmcCpu(const MdmcCpuOptions& options) : options_(options) {
  detail::check(options);
}

void MdmcCpu::process(const MdmcTasks<MdmcShared>& tasks, HashCubePart& out) {
  scratch_.prepare(tasks.shared.tree.dims(), tasks.shared.max_level);
  if (tasks.begin >= tasks.end) return;
  cpu::dispatch_isa_avx512(
      [&](auto isa) { detail::mdmc_process<decltype(isa)>(tasks, options_, scratch_, out); });
}

}  // namespace sextant::skycube

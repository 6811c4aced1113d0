// The B-PAT's memory checks (kept out of the header-only window stage).
#include <bit>
#include <cstdio>
#include <string>

#include "core/error.hpp"
#include "core/host_memory.hpp"
#include "cpu/window/stream_bpat.hpp"

namespace sextant::window::detail {

namespace {

std::string gib(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / static_cast<double>(1ull << 30));
  return text;
}

std::string describe(const BpatShape& g, std::size_t partial_bytes) {
  const std::string layout = g.stage == WindowStageKind::scan ? "two blocks of " + std::to_string(g.w) + " "
                                                              : std::to_string(g.m) + " leaves, " +
                                                                    std::to_string(g.levels) + " levels of ";
  return std::string(g.stage == WindowStageKind::scan ? "the scan" : "the B-PAT") + " of window spec " +
         std::to_string(g.spec) + " (length " + std::to_string(g.length) + ", slide " +
         std::to_string(g.slide) + ": " + std::to_string(g.w) + " panes per window, " + layout +
         std::to_string(partial_bytes) + "-byte partials) needs " + gib(stage_bytes(g, partial_bytes)) +
         " per key";
}

}  // namespace

std::uint64_t stage_bytes(const BpatShape& g, std::size_t partial_bytes) noexcept {
  if (g.stage == WindowStageKind::scan) return 2 * static_cast<std::uint64_t>(g.w) * partial_bytes;
  return static_cast<std::uint64_t>(g.nodes) * partial_bytes + static_cast<std::uint64_t>(g.words) * 8;
}

void check_window_stage_memory(const std::vector<BpatShape>& shapes, std::size_t partial_bytes,
                               std::uint64_t memory) {
  if (memory == 0) memory = usable_memory_bytes();
  if (memory == 0) return;  // unknown: the allocation will tell
  std::uint64_t total = 0;
  const BpatShape* largest = nullptr;
  for (const BpatShape& g : shapes) {
    total += stage_bytes(g, partial_bytes);
    if (largest == nullptr || stage_bytes(g, partial_bytes) > stage_bytes(*largest, partial_bytes))
      largest = &g;
  }
  if (largest == nullptr || total <= memory) return;
  // The smallest tree this spec can have: n_w = 1, i.e. bit_ceil(w) leaves.
  const std::uint64_t least = std::bit_ceil(static_cast<std::uint64_t>(largest->w));
  const std::string fix =
      largest->stage == WindowStageKind::bpat && least < static_cast<std::uint64_t>(largest->m)
          ? "fewer windows per tree (--windows-per-tree 1 needs " + std::to_string(least) + " leaves), or "
          : "";
  throw Error(ErrorKind::resource,
              describe(*largest, partial_bytes) + " (" + gib(total) + " for every spec), more than the " +
                  gib(memory) + " of memory this process may use; what would fit: " + fix +
                  "fewer panes per window: a longer pane (the gcd of every length and slide, now " +
                  std::to_string(largest->length / largest->w) +
                  ", e.g. a slide that divides the length) or a shorter window");
}

void throw_bpat_allocation(const BpatShape& g, std::size_t partial_bytes) {
  throw Error(ErrorKind::resource, "out of memory allocating a B-PAT: " + describe(g, partial_bytes));
}

}  // namespace sextant::window::detail

// The OCM specialisation of the matching hook (paper 002, section 3.2, redesigned): per event, the
// keys of its names select pages (table_view.hpp); a SIMD Bloom scan over a page's 64 filter
// signatures yields the survivors, whose constraints are counted on the page's rows
// (page_eval.hpp). One kernel template over the instruction set (cpu/simd/isa.hpp), each
// instantiation in its own translation unit; the hook type of one instantiation is a variant
// (cpu/matching/matching_variants.hpp). A core matches one event at a time; batches are cut into
// event ranges over the cores by the template's team.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/device.hpp"
#include "cpu/simd/isa.hpp"
#include "templates/matching/hooks.hpp"

namespace sextant::matching {

namespace detail {

// Events [begin, end) of the batch (defined in match_cpu_<isa>.cpp, compiled for that set).
template <class Isa>
void match_events_cpu(const MatchBatch& batch, std::uint32_t begin, std::uint32_t end,
                      std::vector<FilterHit>& hits);

[[noreturn]] void refuse_isa(std::string_view name);

}  // namespace detail

template <class Isa>
class MatchCpuOn {
 public:
  static constexpr std::string_view name = Isa::name;
  static constexpr DeviceKind device_kind = DeviceKind::cpu;
  static constexpr bool fallback = std::is_same_v<Isa, cpu::ScalarIsa>;  // only where no SIMD runs
  static bool can_run() { return cpu::allowed<Isa>(); }

  void match(const MatchBatch& batch, std::uint32_t begin, std::uint32_t end, std::vector<FilterHit>& hits) {
    if (!can_run()) detail::refuse_isa(Isa::name);
    detail::match_events_cpu<Isa>(batch, begin, end, hits);
  }
};

static_assert(MatchHook<MatchCpuOn<cpu::ScalarIsa>>);

}  // namespace sextant::matching

// Sliding windows over out-of-order keyed streams (paper 000, SPRINGALD): the window
// specifications of one operator and the pane geometry they share.
//
// Semantics (DESIGN.md, binding): window k of a spec (W, S) covers [k*S, k*S + W), aligned to
// 0, in time units (time windows) or per-key tuple positions (count windows). Every spec of
// one operator shares one pane stage: the pane length P is the gcd of every length and slide,
// so every window is a whole number of panes: window k = panes [k*s, k*s + w) with s = S/P,
// w = W/P. Pane j covers [j*P, (j+1)*P).
//
// Time windows: the operator watermark is the running maximum of the tuples' watermarks; a
// tuple whose timestamp is below (watermark - L) when it arrives is late and dropped (its own
// watermark takes effect after it). Pane j is closed once (j+1)*P <= watermark - L: no tuple
// can reach it any more. A window fires when its last pane closes (watermark >= end + L); at
// end of stream every open window fires. Only windows that received a tuple are emitted.
// Count windows: no lateness, no watermarks; a pane closes when its key has (j+1)*P tuples;
// only full windows are emitted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace sextant::window {

enum class WindowType : std::uint8_t { time, count };

std::string_view to_string(WindowType type) noexcept;
// "time|count"; throws Error naming `parameter`.
WindowType parse_window_type(const char* parameter, std::string_view text);

// The variant of the window stage that turns closed panes into windows: the B-PAT (O(log w)
// combines per window, skips empty stretches), the block scan (O(1) combines per pane, for
// fine slides) or the dense scan (the block scan over every key at once, panes held as rows
// over keys so that each pane is one sequential pass: many keys that each see most panes;
// time windows only); `automatic` lets the backend's cost model pick. A backend without the
// requested variant refuses it when constructed (Error::unsupported).
enum class WindowStageKind : std::uint8_t { automatic, bpat, scan, dense };

std::string_view to_string(WindowStageKind kind) noexcept;
// "auto|bpat|scan|dense"; throws Error naming `parameter`.
WindowStageKind parse_window_stage(const char* parameter, std::string_view text);

struct WindowSpec {
  // Lengths, slides and lateness stay below 2^40 so that every pane and position computation
  // of every backend fits in 64 bits with room to spare.
  static constexpr std::int64_t max_parameter = std::int64_t{1} << 40;

  WindowType type = WindowType::time;
  std::int64_t length = 0;  // W >= 1
  std::int64_t slide = 0;   // S >= 1 (S > W leaves gaps, S == W is tumbling)
};

struct StreamWindowOptions {
  std::vector<WindowSpec> specs;       // at least one, all of the same type
  std::int64_t lateness = 0;           // L >= 0; must be 0 for count windows
  std::int64_t windows_per_tree = 64;  // n_w >= 1: windows one B-PAT covers (a tuning knob)
  WindowStageKind window_stage = WindowStageKind::automatic;
};

// The geometry of one spec in panes.
struct SpecGeometry {
  WindowSpec spec;
  std::int64_t panes_per_window = 0;  // w = W / P
  std::int64_t panes_per_slide = 0;   // s = S / P
  // Leaves of its B-PAT: m = w + (n_w - 1) * s rounded up to a power of two. Only the levels
  // 0 .. floor(log2(w)) are kept: a window never needs a node wider than itself.
  std::int64_t tree_leaves = 0;
  int tree_levels = 0;  // floor(log2(w)) + 1 levels, level 0 = the leaves

  // The first and last window (inclusive) that contain pane j; first > last when none does
  // (a pane inside a gap between windows, S > W).
  constexpr std::int64_t first_window_of_pane(std::int64_t j) const noexcept {
    const std::int64_t lo = j - panes_per_window + 1;  // window k contains j iff k*s in (j-w, j]
    return lo <= 0 ? 0 : (lo + panes_per_slide - 1) / panes_per_slide;
  }
  constexpr std::int64_t last_window_of_pane(std::int64_t j) const noexcept { return j / panes_per_slide; }
  // Window k fires once every pane below this one is closed.
  constexpr std::int64_t end_pane(std::int64_t k) const noexcept {
    return k * panes_per_slide + panes_per_window;
  }
};

// The operator watermark before any tuple carried one. Lateness tests are written as
// ts + L < wm so that this value never overflows.
inline constexpr std::int64_t no_watermark = INT64_MIN;

struct StreamGeometry {
  WindowType type = WindowType::time;
  std::int64_t pane = 0;  // P
  std::int64_t lateness = 0;
  std::int64_t windows_per_tree = 0;
  WindowStageKind window_stage = WindowStageKind::automatic;
  std::vector<SpecGeometry> specs;
  // Time windows: the largest timestamp accepted, 2^63 - 1 - 2^42 - L - max(W + S) over the
  // specs: every window holding a tuple then ends, and fires (end + L), within int64, with room
  // for the pane and tree arithmetic of every backend (whose spans stay below 2^41 panes).
  // Count windows ignore timestamps: any timestamp >= 0.
  std::int64_t max_timestamp = INT64_MAX;

  // Time windows: panes below this id are closed at watermark `wm` (nothing can reach them).
  // `wm` may be no_watermark (nothing closed yet).
  constexpr std::int64_t closed_panes(std::int64_t wm) const noexcept {
    return wm <= lateness ? 0 : (wm - lateness) / pane;
  }
};

// Validates `options` (throws Error::argument naming the spec index, the parameter and its
// valid range) and derives the shared geometry.
StreamGeometry make_geometry(const StreamWindowOptions& options);

// The first timestamp of ts[0..n) above `limit` (StreamGeometry::max_timestamp), or n.
std::size_t first_timestamp_above(const std::int64_t* ts, std::size_t n, std::int64_t limit) noexcept;
// Throws Error (bad_input): "<tuple>: timestamp <ts> is above ... (valid: 0 .. <limit> ...)".
[[noreturn]] void throw_timestamp_above(std::string_view tuple, std::int64_t ts, std::int64_t limit);

}  // namespace sextant::window

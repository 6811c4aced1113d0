// What flows into and out of a stream-window operator.
//
// Input: batches of tuples in columns (structure of arrays), so that only the fields the
// aggregate needs are read or cross PCIe. The in-memory 32-byte tuple of the paper (four
// int32, two float32, one int64 timestamp) lives in datagen/stream_generator.hpp and is
// projected into a StreamBatch. Tuples of one batch are in arrival order.
//
// Output: one WindowResult per emitted window. Within one poll, results come in firing order;
// callers that want a canonical order sort by (spec, key, start).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "templates/window/count_window.hpp"

namespace sextant::window {

using StreamKey = std::uint32_t;

template <WindowValue V>
struct StreamBatch {
  std::span<const StreamKey> keys;           // empty: every tuple has key 0
  std::span<const std::int64_t> timestamps;  // >= 0; ignored by count windows (still checked)
  std::span<const V> values;
  std::span<const std::int64_t> watermarks;  // the source's watermark after each tuple; empty: none

  std::size_t size() const noexcept { return values.size(); }
};

template <class Output>
struct WindowResult {
  std::uint32_t spec = 0;  // index into StreamWindowOptions::specs
  StreamKey key = 0;
  std::int64_t start = 0;  // k*S
  std::int64_t end = 0;    // k*S + W (exclusive)
  Output value{};

  friend bool operator==(const WindowResult&, const WindowResult&) = default;
};

// Running totals of one operator, for the CLI summary and the tests.
struct StreamCounters {
  std::uint64_t tuples_in = 0;
  std::uint64_t late_dropped = 0;        // time windows: ts + L < watermark at arrival
  std::uint64_t watermarks_ignored = 0;  // a watermark lower than the operator's, not an error
  std::uint64_t windows_emitted = 0;
  std::uint64_t batches = 0;
};

}  // namespace sextant::window

// The pane stage's batch validation errors (kept out of the header-only stage).
#include <string>

#include "core/error.hpp"
#include "cpu/window/stream_pane_stage_cpu.hpp"

namespace sextant::window {

namespace detail {

void check_stream_columns(std::size_t values, std::size_t keys, std::size_t timestamps,
                          std::size_t watermarks) {
  const auto bad = [&](const char* column, std::size_t size, const char* valid) {
    return Error(ErrorKind::bad_input, "stream batch: " + std::to_string(size) + " " + column + " for " +
                                           std::to_string(values) + " values (valid: " + valid + ")");
  };
  if (timestamps != values) throw bad("timestamps", timestamps, "one per value");
  if (keys != 0 && keys != values) throw bad("keys", keys, "one per value, or none: every key 0");
  if (watermarks != 0 && watermarks != values) throw bad("watermarks", watermarks, "one per value, or none");
}

void throw_negative_timestamp(const std::int64_t* timestamps, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (timestamps[i] < 0)
      throw Error(ErrorKind::bad_input, "stream batch: tuple " + std::to_string(i) + " has timestamp " +
                                            std::to_string(timestamps[i]) + " (valid: >= 0)");
  throw Error::internal("throw_negative_timestamp: no negative timestamp");
}

}  // namespace detail

}  // namespace sextant::window

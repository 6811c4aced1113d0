// How much memory this process may use, for defaults that scale with the machine: its physical
// memory, or the limit of its control group (a container's, a systemd slice's) when that is lower.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace sextant {

// Bytes of physical memory, capped by every memory limit of this process's control group and of
// its ancestors (cgroup v2 memory.max, v1 memory.limit_in_bytes); 0 when unknown.
std::uint64_t usable_memory_bytes();

namespace detail {
// A cgroup memory limit file's text: a byte count, or "max" (no limit: nullopt); nullopt for
// anything else.
std::optional<std::uint64_t> parse_memory_limit(std::string_view text);
}  // namespace detail

}  // namespace sextant

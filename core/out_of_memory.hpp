// Host allocations that fail say how much they asked for, so that an out-of-memory error can
// tell the user the size instead of only "out of memory".
#pragma once

#include <cstddef>
#include <string>

namespace sextant {

// Notes `bytes` as the allocation that failed, then throws std::bad_alloc.
[[noreturn]] void throw_out_of_memory(std::size_t bytes);

// True when `bytes` exceed this machine's memory and swap together: an allocation no machine of
// this size can back. Checked before allocating, because with overcommit the allocation itself
// succeeds and the process is killed later, while it fills the pages.
bool beyond_this_machine(std::size_t bytes) noexcept;

// The size of the last allocation that failed through throw_out_of_memory (0: none noted).
std::size_t last_failed_allocation() noexcept;

// "out of host memory: an allocation of 4.00 GiB failed (this machine has 23.4 GiB, 1.20 GiB
// available)"; the parts that are not known are left out.
std::string out_of_memory_message();

}  // namespace sextant

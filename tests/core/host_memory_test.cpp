// usable_memory_bytes (core/host_memory.hpp): the machine's memory capped by its control group's
// limits, and the parser of those limit files.
#include "core/host_memory.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <optional>

namespace sextant {
namespace {

TEST(HostMemory, LimitFilesParse) {
  EXPECT_EQ(detail::parse_memory_limit("1073741824\n"), std::optional<std::uint64_t>(1073741824));
  EXPECT_EQ(detail::parse_memory_limit("9223372036854771712"),
            std::optional<std::uint64_t>(9223372036854771712ULL));
  EXPECT_EQ(detail::parse_memory_limit("max\n"), std::nullopt);
  EXPECT_EQ(detail::parse_memory_limit(""), std::nullopt);
  EXPECT_EQ(detail::parse_memory_limit("12 MiB"), std::nullopt);
  EXPECT_EQ(detail::parse_memory_limit("-5"), std::nullopt);
}

// Positive on Linux, and never above the physical memory.
TEST(HostMemory, UsableMemoryIsAtMostThePhysicalMemory) {
  const auto physical = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                        static_cast<std::uint64_t>(sysconf(_SC_PAGE_SIZE));
  const std::uint64_t usable = usable_memory_bytes();
  EXPECT_GT(usable, 0u);
  EXPECT_LE(usable, physical);
}

}  // namespace
}  // namespace sextant

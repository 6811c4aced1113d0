#include "core/out_of_memory.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <new>
#include <string>

#include "core/aligned_buffer.hpp"

namespace sextant {
namespace {

TEST(OutOfMemory, AllocationsBeyondMemoryAndSwapAreRefusedBeforeAllocating) {
  EXPECT_FALSE(beyond_this_machine(std::size_t{1} << 20));
  EXPECT_FALSE(beyond_this_machine((std::size_t{1} << 30) - 1));
  const std::size_t huge = std::size_t{1} << 60;  // an exbibyte
  EXPECT_TRUE(beyond_this_machine(huge));
  // Refused and named, with or without overcommit.
  EXPECT_THROW(AlignedBuffer<float>(huge / sizeof(float)), std::bad_alloc);
  EXPECT_EQ(last_failed_allocation(), huge);
  EXPECT_NE(out_of_memory_message().find("an allocation of 1073741824.00 GiB failed"), std::string::npos)
      << out_of_memory_message();
}

}  // namespace
}  // namespace sextant

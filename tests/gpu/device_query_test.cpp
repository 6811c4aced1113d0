#include <gtest/gtest.h>

#include "core/error.hpp"
#include "gpu_test_support.hpp"

namespace sextant {
namespace {

TEST(GpuDevice, ReportsUsableProperties) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  for (const auto& info : gpu::all_devices()) {
    EXPECT_FALSE(info.name.empty());
    EXPECT_GT(info.multiprocessors, 0);
    EXPECT_GT(info.global_memory_bytes, std::size_t{1} << 30);
    EXPECT_GE(info.compute_major, 7);
  }
  EXPECT_THROW(gpu::device_info(gpu::device_count()), Error);
#endif
}

TEST(GpuDevice, KernelWritesEveryElement) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  for (std::size_t n : {std::size_t{1}, std::size_t{255}, std::size_t{1} << 20}) {
    const auto out = gpu::smoke_test(0, n);
    ASSERT_EQ(out.size(), n);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], static_cast<unsigned>(i * i + 1)) << "i=" << i;
  }
#endif
}

TEST(GpuDevice, InitialiseNamesItsGpuAndRejectsOthers) {
  SEXTANT_REQUIRE_GPUS(1);
#if SEXTANT_HAS_CUDA
  for (int g = 0; g < gpu::device_count(); ++g) EXPECT_NO_THROW(gpu::initialise(g));
  EXPECT_THROW(gpu::initialise(-1), Error);
  EXPECT_THROW(gpu::initialise(gpu::device_count()), Error);
  EXPECT_EQ(gpu::smoke_test(0, 10)[9], 82u);  // the device still works after
#endif
}

TEST(GpuDevice, MultipleGpusEachRunKernels) {
  SEXTANT_REQUIRE_GPUS(2);
#if SEXTANT_HAS_CUDA
  for (int g = 0; g < gpu::device_count(); ++g) EXPECT_EQ(gpu::smoke_test(g, 1000)[999], 999u * 999u + 1u);
#endif
}

}  // namespace
}  // namespace sextant

// Tests core/train/compute_setup's thread choice: LibTorch's threads as asked, and OpenBLAS's pool
// as large for a model at least kBlasPoolWidth wide (its products each get every core), one thread
// for a narrower model or none; blas_pool_size says the same size. And its glibc setting: a block
// of 64 MB (above glibc's largest default mmap threshold, 32 MB) comes from the heap, not a fresh
// mapping.

#include "train/compute_setup.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <cstdlib>

#include "model/clip_config.h"
#include "numeric/blas_threads.h"

namespace hnclip {
namespace {

TEST(ComputeSetup, BlasPoolFollowsTheModelsWidth) {
  ASSERT_GT(blas_threads(), 0) << "OpenBLAS's pool functions were not found through LibTorch";
  const auto tiny = clip_preset("tiny", 1000, 77);
  const auto wide = clip_preset("ViT-B/32", 49408, 77);
  ASSERT_LT(model_width(tiny), kBlasPoolWidth);
  ASSERT_GE(model_width(wide), kBlasPoolWidth);
  EXPECT_EQ(model_width(wide), 768);  // the vision tower; the text tower is 512

  configure_threads(2, &wide);
  EXPECT_EQ(at::get_num_threads(), 2);
  EXPECT_EQ(blas_threads(), 2);
  EXPECT_EQ(blas_pool_size(2, &wide), 2);
  configure_threads(2, &tiny);
  EXPECT_EQ(blas_threads(), 1);
  EXPECT_EQ(blas_pool_size(2, &tiny), 1);
  configure_threads(2, &wide);
  configure_threads(2);  // no model
  EXPECT_EQ(blas_threads(), 1);
  EXPECT_EQ(blas_pool_size(2, nullptr), 1);
  configure_threads(1, &wide);  // one thread in all
  EXPECT_EQ(at::get_num_threads(), 1);
  EXPECT_EQ(blas_threads(), 1);
  EXPECT_EQ(blas_pool_size(1, &wide), 1);
  EXPECT_THROW(configure_threads(0, &wide), std::invalid_argument);
}

#ifdef __GLIBC__
TEST(ComputeSetup, KeepsLargeBlocksInTheHeap) {
  configure_threads(1);
  constexpr size_t kBlock = 64u << 20;
  static_assert(kBlock < static_cast<size_t>(kMallocMmapThreshold));
  const size_t mapped_before = mallinfo2().hblkhd;
  void* block = std::malloc(kBlock);
  ASSERT_NE(block, nullptr);
  const size_t mapped_during = mallinfo2().hblkhd;
  std::free(block);
  EXPECT_EQ(mapped_during, mapped_before) << "a 64 MB block was mapped on its own";
}
#endif

}  // namespace
}  // namespace hnclip

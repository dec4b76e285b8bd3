// Tests core/train/compute_setup's thread choice: LibTorch's threads as asked, and OpenBLAS's pool
// as large for a model at least kBlasPoolWidth wide (its products each get every core), one thread
// for a narrower model or none.

#include "train/compute_setup.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>

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
  configure_threads(2, &tiny);
  EXPECT_EQ(blas_threads(), 1);
  configure_threads(2, &wide);
  configure_threads(2);  // no model
  EXPECT_EQ(blas_threads(), 1);
  configure_threads(1, &wide);  // one thread in all
  EXPECT_EQ(at::get_num_threads(), 1);
  EXPECT_EQ(blas_threads(), 1);
  EXPECT_THROW(configure_threads(0, &wide), std::invalid_argument);
}

}  // namespace
}  // namespace hnclip

// Tests core/numeric/blas_threads: the OpenBLAS pool's size is read and set through LibTorch's
// OpenBLAS (Debian's LibTorch links it), and SingleThreadedBlas restores what it found.

#include "numeric/blas_threads.h"

#include <gtest/gtest.h>

namespace hnclip {
namespace {

TEST(BlasThreads, SetsReadsAndRestoresThePool) {
  // Debian's LibTorch multiplies through OpenBLAS: the functions must be found, or every setting
  // the workbench makes would silently do nothing.
  ASSERT_GT(blas_threads(), 0) << "OpenBLAS's pool functions were not found through LibTorch";
  const int before = blas_threads();
  set_blas_threads(2);
  EXPECT_EQ(blas_threads(), 2);
  {
    const SingleThreadedBlas one;
    EXPECT_EQ(blas_threads(), 1);
  }
  EXPECT_EQ(blas_threads(), 2);
  set_blas_threads(1);
  {
    const SingleThreadedBlas one;  // already one: left alone, and so after
    EXPECT_EQ(blas_threads(), 1);
  }
  EXPECT_EQ(blas_threads(), 1);
  set_blas_threads(0);  // refused: not a pool size
  EXPECT_EQ(blas_threads(), 1);
  set_blas_threads(before);
}

}  // namespace
}  // namespace hnclip

// Tests core/numeric/non_finite_values: counts and the first bad index (row-major), integer and
// empty tensors are never "non-finite", and the description names both counts and the index.

#include "numeric/non_finite_values.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <limits>

namespace hnclip {
namespace {

TEST(NonFiniteValues, FiniteIntegerAndEmptyTensorsAreFine) {
  EXPECT_FALSE(find_non_finite(torch::randn({4, 5})));
  EXPECT_FALSE(find_non_finite(torch::arange(10)));
  EXPECT_FALSE(find_non_finite(torch::empty({0, 3})));
  EXPECT_FALSE(find_non_finite(torch::Tensor()));
  EXPECT_FALSE(find_non_finite(torch::full({2}, std::numeric_limits<float>::max())));
}

TEST(NonFiniteValues, CountsAndTheFirstBadIndexInRowMajorOrder) {
  auto t = torch::zeros({3, 4, 5});
  t[2][0][1] = std::numeric_limits<float>::quiet_NaN();
  t[1][3][4] = std::numeric_limits<float>::infinity();  // first in row-major order
  t[2][3][0] = -std::numeric_limits<float>::infinity();
  const auto v = find_non_finite(t);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->nan, 1);
  EXPECT_EQ(v->infinite, 2);
  EXPECT_EQ(v->first, (std::vector<int64_t>{1, 3, 4}));
  EXPECT_EQ(describe(*v), "1 NaN and 2 infinite value(s), the first at [1, 3, 4]");
}

TEST(NonFiniteValues, HalfPrecisionAndNonContiguousViewsAreChecked) {
  auto t = torch::ones({4, 6}, torch::kHalf);
  t[3][1] = std::numeric_limits<float>::quiet_NaN();
  const auto v = find_non_finite(t.t());  // [6, 4] view: the NaN sits at [1, 3]
  ASSERT_TRUE(v);
  EXPECT_EQ(v->nan, 1);
  EXPECT_EQ(v->first, (std::vector<int64_t>{1, 3}));
}

}  // namespace
}  // namespace hnclip

// Tests core/train/probe_summary on constructed probes: solved and zero-gradient fractions,
// quartiles, NaN cosines ignored, +inf ratios kept.

#include "train/probe_summary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace hnclip {
namespace {

ProbeEvent probe(int epoch, double loss, double gs, double gb, double cosine) {
  const double ratio = gs == 0 ? std::numeric_limits<double>::infinity() : gb / gs;
  return ProbeEvent{0, epoch, loss, loss + 1, gs, gb, ratio, cosine};
}

TEST(ProbeSummary, FractionsAndQuartilesPerEpoch) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<ProbeEvent> p{
      probe(1, 2e-3, 1.0, 2.0, 0.9),    probe(1, 5e-4, 0.5, 2.0, 0.5),  // one solved
      probe(1, 9.99e-4, 0.0, 3.0, nan), probe(1, 0.2, 2.0, 2.0, 0.7),   // solved, zero gradient
      probe(2, 1e-3, 0.1, 0.2, 0.1),                                    // exactly 1e-3: not solved
  };
  auto s = summarize_probes(p);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].epoch, 1);
  EXPECT_EQ(s[0].probes, 4);
  EXPECT_DOUBLE_EQ(s[0].solved_fraction, 0.5);
  EXPECT_DOUBLE_EQ(s[0].zero_grad_fraction, 0.25);
  // standard norms sorted 0, 0.5, 1, 2 -> q1 0.375, median 0.75, q3 1.25
  EXPECT_DOUBLE_EQ(s[0].grad_norm_standard.q1, 0.375);
  EXPECT_DOUBLE_EQ(s[0].grad_norm_standard.median, 0.75);
  EXPECT_DOUBLE_EQ(s[0].grad_norm_standard.q3, 1.25);
  // ratios 1, 2, 4, inf -> median 3, q3 between 4 and inf is inf
  EXPECT_DOUBLE_EQ(s[0].grad_ratio.median, 3.0);
  EXPECT_TRUE(std::isinf(s[0].grad_ratio.q3));
  EXPECT_DOUBLE_EQ(s[0].median_grad_cosine, 0.7);  // NaN ignored: median of 0.5, 0.7, 0.9
  EXPECT_DOUBLE_EQ(s[1].solved_fraction, 0.0);
  EXPECT_DOUBLE_EQ(s[1].zero_grad_fraction, 0.0);
}

TEST(ProbeSummary, EmptyAndAllNan) {
  EXPECT_TRUE(summarize_probes({}).empty());
  auto q = quartiles({std::nan("")});
  EXPECT_TRUE(std::isnan(q.median));
}

}  // namespace
}  // namespace hnclip

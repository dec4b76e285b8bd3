// Tests core/experiment/paired_statistics against hand-computed values and closed forms: the
// Student t distribution with 1, 2 and 3 degrees of freedom has an elementary CDF, I_x(a, 1) and
// I_x(1, b) are powers, and small McNemar tables are counted by hand.

#include "experiment/paired_statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace hnclip {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
const double kPi = std::acos(-1.0);

// dof 1 is the Cauchy distribution: P(|T| >= t) = 1 - 2 atan(|t|) / pi.
double cauchy_two_sided_p(double t) { return 1.0 - 2.0 * std::atan(std::fabs(t)) / kPi; }

// dof 2: P(|T| >= t) = 1 - |t| / sqrt(t^2 + 2).
double dof2_two_sided_p(double t) { return 1.0 - std::fabs(t) / std::sqrt(t * t + 2.0); }

// dof 3: with theta = atan(|t| / sqrt(3)), P(|T| >= t) = 1 - 2 (theta + sin theta cos theta) / pi.
double dof3_two_sided_p(double t) {
  const double theta = std::atan(std::fabs(t) / std::sqrt(3.0));
  return 1.0 - 2.0 * (theta + std::sin(theta) * std::cos(theta)) / kPi;
}

double normal_two_sided_p(double z) { return std::erfc(std::fabs(z) / std::sqrt(2.0)); }

TEST(PairedStatistics, SummarizeSeedsMeanAndSampleStd) {
  const SeedSummary s = summarize_seeds({1.0, 2.0, 3.0});
  EXPECT_EQ(s.n, 3);
  EXPECT_EQ(s.missing, 0);
  EXPECT_DOUBLE_EQ(s.mean, 2.0);
  EXPECT_DOUBLE_EQ(s.std, 1.0);  // sqrt((1 + 0 + 1) / (3 - 1)), not the population sqrt(2/3)
}

TEST(PairedStatistics, SummarizeSeedsSingleValueHasNoStd) {
  const SeedSummary s = summarize_seeds({87.25});
  EXPECT_EQ(s.n, 1);
  EXPECT_DOUBLE_EQ(s.mean, 87.25);
  EXPECT_TRUE(std::isnan(s.std));
}

TEST(PairedStatistics, SummarizeSeedsSkipsAndCountsNonFinite) {
  const SeedSummary s = summarize_seeds({4.0, kNaN, 8.0, kNaN, kInf});
  EXPECT_EQ(s.n, 2);
  EXPECT_EQ(s.missing, 3);
  EXPECT_DOUBLE_EQ(s.mean, 6.0);
  EXPECT_DOUBLE_EQ(s.std, std::sqrt(8.0));  // (4 + 4) / (2 - 1)
}

TEST(PairedStatistics, SummarizeSeedsEmptyAndAllMissing) {
  const SeedSummary empty = summarize_seeds({});
  EXPECT_EQ(empty.n, 0);
  EXPECT_EQ(empty.missing, 0);
  EXPECT_TRUE(std::isnan(empty.mean));
  EXPECT_TRUE(std::isnan(empty.std));
  const SeedSummary all_missing = summarize_seeds({kNaN, kNaN});
  EXPECT_EQ(all_missing.n, 0);
  EXPECT_EQ(all_missing.missing, 2);
  EXPECT_TRUE(std::isnan(all_missing.mean));
}

TEST(PairedStatistics, SummarizeSeedsIdenticalValuesHaveZeroStd) {
  const SeedSummary s = summarize_seeds({0.1, 0.1, 0.1});
  EXPECT_EQ(s.mean, 0.1);  // exactly: a naive sum / n gives 0.10000000000000002
  EXPECT_EQ(s.std, 0.0);
}

TEST(PairedStatistics, ComparePairedMatchesHandComputation) {
  // Differences 87.1 - 83.2 = 3.9, 86.5 - 83.4 = 3.1, 87.6 - 83.2 = 4.4; sum 11.4, mean 3.8.
  // Deviations 0.1, -0.7, 0.6; squares 0.01 + 0.49 + 0.36 = 0.86; variance 0.86 / 2 = 0.43.
  // t = 3.8 / (sqrt(0.43) / sqrt(3)) = 3.8 * sqrt(3 / 0.43) = 10.0371..., with 2 dof.
  const PairedComparison r = compare_paired({87.1, 86.5, 87.6}, {83.2, 83.4, 83.2});
  EXPECT_EQ(r.n, 3);
  EXPECT_NEAR(r.mean_diff, 3.8, 1e-9);
  EXPECT_NEAR(r.std_diff, std::sqrt(0.43), 1e-9);
  EXPECT_NEAR(r.t, 3.8 * std::sqrt(3.0 / 0.43), 1e-9);
  EXPECT_NEAR(r.p_two_sided, dof2_two_sided_p(3.8 * std::sqrt(3.0 / 0.43)), 1e-9);
  EXPECT_EQ(r.improved, 3);
  EXPECT_EQ(r.worse, 0);
}

TEST(PairedStatistics, ComparePairedTwoSeedsIsCauchy) {
  // Differences 1 and 2: mean 1.5, std sqrt(0.25 + 0.25) = sqrt(0.5), t = 1.5 / (sqrt(0.5) /
  // sqrt(2)) = 3 with 1 dof.
  const PairedComparison r = compare_paired({1.0, 3.0}, {0.0, 1.0});
  EXPECT_EQ(r.n, 2);
  EXPECT_DOUBLE_EQ(r.mean_diff, 1.5);
  EXPECT_DOUBLE_EQ(r.std_diff, std::sqrt(0.5));
  EXPECT_NEAR(r.t, 3.0, 1e-12);
  EXPECT_NEAR(r.p_two_sided, cauchy_two_sided_p(3.0), 1e-12);
}

TEST(PairedStatistics, ComparePairedNegativeEffectHasNegativeT) {
  // The same differences as above with the roles swapped: t flips, p does not.
  const PairedComparison r = compare_paired({0.0, 1.0}, {1.0, 3.0});
  EXPECT_NEAR(r.t, -3.0, 1e-12);
  EXPECT_NEAR(r.p_two_sided, cauchy_two_sided_p(3.0), 1e-12);
  EXPECT_EQ(r.improved, 0);
  EXPECT_EQ(r.worse, 2);
}

// Identical differences have no spread, so no t statistic: t and p stay NaN (R's t.test refuses
// them as "essentially constant") and nothing is called significant, whatever the sign.
TEST(PairedStatistics, ComparePairedWithoutSpreadHasNoTest) {
  const PairedComparison up = compare_paired({2.0, 3.0, 5.0}, {1.5, 2.5, 4.5});
  EXPECT_EQ(up.mean_diff, 0.5);
  EXPECT_EQ(up.std_diff, 0.0);
  EXPECT_TRUE(std::isnan(up.t));
  EXPECT_TRUE(std::isnan(up.p_two_sided));
  EXPECT_FALSE(is_significant(up.p_two_sided, 0.05));
  EXPECT_STREQ(untested_reason(up), "no spread");
  EXPECT_EQ(up.improved, 3);
  const PairedComparison down = compare_paired({1.5, 2.5, 4.5}, {2.0, 3.0, 5.0});
  EXPECT_TRUE(std::isnan(down.t));
  EXPECT_TRUE(std::isnan(down.p_two_sided));
  EXPECT_EQ(down.worse, 3);
  const PairedComparison same = compare_paired({80.1, 81.7, 79.3}, {80.1, 81.7, 79.3});
  EXPECT_EQ(same.mean_diff, 0.0);
  EXPECT_EQ(same.std_diff, 0.0);
  EXPECT_TRUE(std::isnan(same.t));
  EXPECT_TRUE(std::isnan(same.p_two_sided));
  EXPECT_STREQ(untested_reason(same), "no spread");
  EXPECT_EQ(same.improved, 0);
  EXPECT_EQ(same.worse, 0);
  EXPECT_STREQ(untested_reason(compare_paired({1.0}, {0.0})), "n < 2");
  EXPECT_STREQ(untested_reason(compare_paired({1.0, 2.0}, {0.0, 0.5})), "");
}

// Recall is 100 · hits / queries: one query more at 1,000 hits and at 300 hits is the same
// difference in queries but not the same double. That rounding residue is no spread either
// (it would read t ≈ 1e13, p = 0); the smallest real spread, one query in a million, is one.
TEST(PairedStatistics, ComparePairedRoundingResidueIsNoSpread) {
  const double n = 1064;
  const std::vector<double> treatment = {100 * 1000 / n, 100 * 300 / n};
  const std::vector<double> control = {100 * 999 / n, 100 * 299 / n};
  ASSERT_NE(treatment[0] - control[0], treatment[1] - control[1]);  // the premise
  const PairedComparison r = compare_paired(treatment, control);
  EXPECT_EQ(r.std_diff, 0.0);
  EXPECT_TRUE(std::isnan(r.t));
  EXPECT_TRUE(std::isnan(r.p_two_sided));
  const double m = 1e6;
  const PairedComparison fine =
      compare_paired({100 * 500001 / m, 100 * 300002 / m}, {100 * 500000 / m, 100 * 300000 / m});
  EXPECT_GT(fine.std_diff, 0.0);
  EXPECT_TRUE(std::isfinite(fine.t));
  EXPECT_GT(fine.p_two_sided, 0.0);
}

TEST(PairedStatistics, ComparePairedCountsImprovedWorseAndTies) {
  const PairedComparison r = compare_paired({5.0, 4.0, 3.0, 7.0, 1.0}, {4.0, 4.0, 6.0, 2.0, 0.5});
  EXPECT_EQ(r.n, 5);
  EXPECT_EQ(r.improved, 3);
  EXPECT_EQ(r.worse, 1);
}

TEST(PairedStatistics, ComparePairedDropsPairsWithNaNOnEitherSide) {
  // Only the pairs (1, 0) and (3, 1) survive: the two-seed Cauchy case again.
  const PairedComparison r = compare_paired({1.0, kNaN, 3.0, 9.0}, {0.0, 5.0, 1.0, kNaN});
  EXPECT_EQ(r.n, 2);
  EXPECT_DOUBLE_EQ(r.mean_diff, 1.5);
  EXPECT_NEAR(r.t, 3.0, 1e-12);
  EXPECT_EQ(r.improved, 2);
  EXPECT_EQ(r.worse, 0);
}

TEST(PairedStatistics, ComparePairedTooFewPairs) {
  const PairedComparison one = compare_paired({2.0, kNaN}, {1.0, 1.0});
  EXPECT_EQ(one.n, 1);
  EXPECT_DOUBLE_EQ(one.mean_diff, 1.0);
  EXPECT_TRUE(std::isnan(one.std_diff));
  EXPECT_TRUE(std::isnan(one.t));
  EXPECT_TRUE(std::isnan(one.p_two_sided));
  const PairedComparison none = compare_paired({}, {});
  EXPECT_EQ(none.n, 0);
  EXPECT_TRUE(std::isnan(none.mean_diff));
  EXPECT_TRUE(std::isnan(none.p_two_sided));
}

TEST(PairedStatistics, ComparePairedSizeMismatchThrowsNamingBothSizes) {
  try {
    compare_paired({1.0, 2.0, 3.0}, {1.0, 2.0});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find('3'), std::string::npos) << message;
    EXPECT_NE(message.find('2'), std::string::npos) << message;
  }
}

TEST(PairedStatistics, StudentTOneDofIsCauchy) {
  for (double t : {0.1, 0.5, 1.0, -2.0, 3.0, 12.7062, 100.0}) {
    EXPECT_NEAR(student_t_two_sided_p(t, 1.0), cauchy_two_sided_p(t), 1e-12) << "t=" << t;
  }
  EXPECT_NEAR(student_t_two_sided_p(1.0, 1.0), 0.5, 1e-12);
}

TEST(PairedStatistics, StudentTTwoAndThreeDofClosedForms) {
  for (double t : {0.2, 1.0, -1.5, 4.302653, 9.0, 50.0}) {
    EXPECT_NEAR(student_t_two_sided_p(t, 2.0), dof2_two_sided_p(t), 1e-12) << "t=" << t;
    EXPECT_NEAR(student_t_two_sided_p(t, 3.0), dof3_two_sided_p(t), 1e-12) << "t=" << t;
  }
}

TEST(PairedStatistics, StudentTTableValues) {
  EXPECT_NEAR(student_t_two_sided_p(4.302653, 2.0), 0.05, 1e-6);
  EXPECT_NEAR(student_t_two_sided_p(3.182446, 3.0), 0.05, 1e-6);
  EXPECT_NEAR(student_t_two_sided_p(2.776445, 4.0), 0.05, 1e-5);
  EXPECT_NEAR(student_t_two_sided_p(-2.776445, 4.0), 0.05, 1e-5);
  EXPECT_NEAR(student_t_two_sided_p(2.228139, 10.0), 0.05, 1e-6);
  EXPECT_NEAR(student_t_two_sided_p(3.169273, 10.0), 0.01, 1e-6);
  EXPECT_NEAR(student_t_two_sided_p(2.042272, 30.0), 0.05, 1e-6);
}

TEST(PairedStatistics, StudentTLargeDofApproachesNormal) {
  EXPECT_NEAR(student_t_two_sided_p(1.959964, 1e6), 0.05, 1e-4);
  EXPECT_NEAR(student_t_two_sided_p(1.959964, 1e6), normal_two_sided_p(1.959964), 1e-5);
  EXPECT_NEAR(student_t_two_sided_p(3.0, 1e6), normal_two_sided_p(3.0), 1e-6);
  EXPECT_NEAR(student_t_two_sided_p(1.959964, kInf), 0.05, 1e-6);
  // Far past where lgamma(dof / 2) keeps enough digits for the incomplete beta (8e-6 off at 1e12).
  EXPECT_NEAR(student_t_two_sided_p(1.959964, 1e12), normal_two_sided_p(1.959964), 1e-9);
  EXPECT_NEAR(student_t_two_sided_p(0.01, 1e12), normal_two_sided_p(0.01), 1e-9);
}

TEST(PairedStatistics, StudentTEdgeCases) {
  EXPECT_DOUBLE_EQ(student_t_two_sided_p(0.0, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(student_t_two_sided_p(0.0, 7.0), 1.0);
  EXPECT_EQ(student_t_two_sided_p(kInf, 5.0), 0.0);
  EXPECT_EQ(student_t_two_sided_p(-kInf, 5.0), 0.0);
  EXPECT_TRUE(std::isnan(student_t_two_sided_p(kNaN, 5.0)));
  EXPECT_TRUE(std::isnan(student_t_two_sided_p(2.0, kNaN)));
  EXPECT_TRUE(std::isnan(student_t_two_sided_p(2.0, 0.5)));
  EXPECT_TRUE(std::isnan(student_t_two_sided_p(2.0, 0.0)));
  // p shrinks as |t| grows and grows as dof shrinks (heavier tails).
  EXPECT_LT(student_t_two_sided_p(3.0, 5.0), student_t_two_sided_p(2.0, 5.0));
  EXPECT_GT(student_t_two_sided_p(3.0, 2.0), student_t_two_sided_p(3.0, 20.0));
}

TEST(PairedStatistics, IncompleteBetaUniformIsIdentity) {
  for (double x : {0.0, 0.05, 0.3, 0.5, 0.77, 0.999, 1.0}) {
    EXPECT_NEAR(regularized_incomplete_beta(x, 1.0, 1.0), x, 1e-13) << "x=" << x;
  }
}

TEST(PairedStatistics, IncompleteBetaPowers) {
  // I_x(a, 1) = x^a and I_x(1, b) = 1 - (1 - x)^b; x on both sides of (a + 1) / (a + b + 2) so
  // both the direct fraction and the symmetric one are used.
  for (double a : {0.5, 2.5, 7.0}) {
    for (double x : {0.01, 0.2, 0.6, 0.9, 0.99}) {
      EXPECT_NEAR(regularized_incomplete_beta(x, a, 1.0), std::pow(x, a), 1e-12)
          << "a=" << a << " x=" << x;
      EXPECT_NEAR(regularized_incomplete_beta(x, 1.0, a), 1.0 - std::pow(1.0 - x, a), 1e-12)
          << "b=" << a << " x=" << x;
    }
  }
}

TEST(PairedStatistics, IncompleteBetaSymmetry) {
  for (double x : {0.1, 0.3, 0.5, 0.8, 0.95}) {
    for (const auto& ab :
         std::vector<std::pair<double, double>>{{2.0, 5.0}, {0.5, 3.0}, {30, 0.5}}) {
      const double a = ab.first;
      const double b = ab.second;
      EXPECT_NEAR(regularized_incomplete_beta(x, a, b),
                  1.0 - regularized_incomplete_beta(1.0 - x, b, a), 1e-12)
          << "x=" << x << " a=" << a << " b=" << b;
    }
  }
  // I_{1/2}(a, a) = 1/2 for any a.
  EXPECT_NEAR(regularized_incomplete_beta(0.5, 3.7, 3.7), 0.5, 1e-12);
  // I_x(2, 2) = 3x^2 - 2x^3.
  EXPECT_NEAR(regularized_incomplete_beta(0.3, 2.0, 2.0), 3 * 0.09 - 2 * 0.027, 1e-12);
}

TEST(PairedStatistics, IncompleteBetaEndpoints) {
  EXPECT_EQ(regularized_incomplete_beta(0.0, 2.5, 0.5), 0.0);
  EXPECT_EQ(regularized_incomplete_beta(1.0, 2.5, 0.5), 1.0);
  EXPECT_EQ(regularized_incomplete_beta(0.0, 0.1, 40.0), 0.0);
  EXPECT_EQ(regularized_incomplete_beta(1.0, 0.1, 40.0), 1.0);
}

TEST(PairedStatistics, IncompleteBetaDomainErrorsThrow) {
  EXPECT_THROW(regularized_incomplete_beta(-0.1, 1.0, 1.0), std::invalid_argument);
  EXPECT_THROW(regularized_incomplete_beta(1.1, 1.0, 1.0), std::invalid_argument);
  EXPECT_THROW(regularized_incomplete_beta(kNaN, 1.0, 1.0), std::invalid_argument);
  EXPECT_THROW(regularized_incomplete_beta(0.5, 0.0, 1.0), std::invalid_argument);
  EXPECT_THROW(regularized_incomplete_beta(0.5, 1.0, -2.0), std::invalid_argument);
  EXPECT_THROW(regularized_incomplete_beta(0.5, kNaN, 1.0), std::invalid_argument);
  EXPECT_THROW(regularized_incomplete_beta(0.5, 1.0, kInf), std::invalid_argument);
}

TEST(PairedStatistics, McNemarSmallTablesByHand) {
  EXPECT_EQ(mcnemar_exact_p(0, 0), 1.0);
  // All six discordant queries favour one run: 2 * (1/2)^6.
  EXPECT_NEAR(mcnemar_exact_p(0, 6), 0.03125, 1e-14);
  // P(X <= 1) for Binomial(10, 1/2) = (C(10,0) + C(10,1)) / 2^10 = 11 / 1024.
  EXPECT_NEAR(mcnemar_exact_p(1, 9), 2.0 * 11.0 / 1024.0, 1e-14);
  // P(X <= 2) for Binomial(12, 1/2) = (1 + 12 + 66) / 4096.
  EXPECT_NEAR(mcnemar_exact_p(2, 10), 2.0 * 79.0 / 4096.0, 1e-14);
  EXPECT_NEAR(mcnemar_exact_p(0, 1), 1.0, 1e-14);
}

TEST(PairedStatistics, McNemarBalancedIsClampedToOne) {
  EXPECT_EQ(mcnemar_exact_p(1, 1), 1.0);
  EXPECT_EQ(mcnemar_exact_p(7, 7), 1.0);
  EXPECT_EQ(mcnemar_exact_p(50000, 50000), 1.0);
  // b, c = 4, 5: P(X <= 4) for Binomial(9, 1/2) = 1/2 exactly, so 2 * 1/2 = 1.
  EXPECT_NEAR(mcnemar_exact_p(4, 5), 1.0, 1e-14);
}

TEST(PairedStatistics, McNemarIsSymmetric) {
  EXPECT_EQ(mcnemar_exact_p(3, 17), mcnemar_exact_p(17, 3));
  EXPECT_EQ(mcnemar_exact_p(40000, 41000), mcnemar_exact_p(41000, 40000));
}

TEST(PairedStatistics, McNemarLargeCountsMatchTheNormalApproximation) {
  const double p = mcnemar_exact_p(40000, 41000);
  const double z = 1000.0 / std::sqrt(81000.0);  // |b - c| / sqrt(b + c) = 3.51...
  const double normal = normal_two_sided_p(z);
  ASSERT_TRUE(std::isfinite(p));
  EXPECT_GT(p, 0.0);
  EXPECT_LT(p, 1.0);
  EXPECT_NEAR(p / normal, 1.0, 0.1) << "exact " << p << " normal " << normal;
  // A million discordant queries: the log-space sum neither overflows nor underflows.
  const double big = mcnemar_exact_p(499000, 501000);  // z = 2000 / 1000 = 2
  EXPECT_NEAR(big / normal_two_sided_p(2.0), 1.0, 0.1) << big;
  // A lopsided table is tiny but still a positive number.
  const double lopsided = mcnemar_exact_p(100, 400);
  EXPECT_GT(lopsided, 0.0);
  EXPECT_LT(lopsided, 1e-30);
}

TEST(PairedStatistics, McNemarNegativeCountThrows) {
  EXPECT_THROW(mcnemar_exact_p(-1, 3), std::invalid_argument);
  EXPECT_THROW(mcnemar_exact_p(3, -1), std::invalid_argument);
}

TEST(PairedStatistics, IsSignificant) {
  EXPECT_TRUE(is_significant(0.01, 0.05));
  EXPECT_FALSE(is_significant(0.05, 0.05));  // strictly below alpha
  EXPECT_FALSE(is_significant(0.2, 0.05));
  EXPECT_FALSE(is_significant(kNaN, 0.05));
  EXPECT_FALSE(is_significant(kNaN, 1.0));
  EXPECT_TRUE(is_significant(0.0, 0.05));  // the zero-variance "certain" case
}

}  // namespace
}  // namespace hnclip

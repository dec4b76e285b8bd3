#pragma once
// The statistics behind "is this change better than its control, or just another seed?": the
// spread of one configuration over seeds, a paired t-test of a treatment against a control run
// with the same seeds, and the exact McNemar test for two runs scored on the same queries. Only
// the standard library, so the CLI, the GUI and the tests agree on one set of numbers. Plain
// values and pure functions: any thread, any library.

#include <cstdint>
#include <limits>
#include <vector>

namespace hnclip {

// Mean and sample standard deviation (n - 1 denominator) of one configuration's per-seed values.
struct SeedSummary {
  int n = 0;        // finite values used
  int missing = 0;  // NaN or infinite values: a seed that crashed or was never evaluated
  double mean = std::numeric_limits<double>::quiet_NaN();  // NaN when n == 0
  double std = std::numeric_limits<double>::quiet_NaN();   // NaN when n < 2
};
SeedSummary summarize_seeds(const std::vector<double>& values);

// A treatment against a control over seeds. Seeds fix the data order, so treatment[i] and
// control[i] saw the same batches and pair up; pairing removes the seed-to-seed variance that an
// unpaired test would charge to the treatment. Pairs where either side is NaN or infinite are
// dropped.
struct PairedComparison {
  int n = 0;                                                    // pairs used
  double mean_diff = std::numeric_limits<double>::quiet_NaN();  // treatment - control; n >= 1
  double std_diff = std::numeric_limits<double>::quiet_NaN();   // sample std; n >= 2
  // mean_diff / (std_diff / sqrt(n)); n >= 2 and std_diff > 0. Identical differences
  // (std_diff == 0) leave t and p NaN: the statistic is undefined there (R's t.test refuses
  // "data are essentially constant"), and they are no certainty. Recall moves in steps of one
  // query (0.09 points on 1,064), so two seeds that each differ by the same one query would
  // otherwise read "t = -inf, p = 0, significant" while McNemar gives p = 1 per seed.
  double t = std::numeric_limits<double>::quiet_NaN();
  // Two-sided, n - 1 degrees of freedom; n >= 2 and std_diff > 0, else NaN (see t).
  double p_two_sided = std::numeric_limits<double>::quiet_NaN();
  int improved = 0;  // pairs with treatment > control
  int worse = 0;     // pairs with treatment < control
};
// Throws std::invalid_argument (naming both sizes) when the two runs have different seed counts:
// pairing by position would then compare different seeds.
PairedComparison compare_paired(const std::vector<double>& treatment,
                                const std::vector<double>& control);

// Why a comparison has no t-test, in a few words for a table cell: "n < 2" (fewer than two
// pairs), "no spread" (identical differences at every seed); empty when it has one.
const char* untested_reason(const PairedComparison& c);

// Two-sided p-value of a Student t statistic with dof >= 1 degrees of freedom (not necessarily an
// integer): P(|T| >= |t|) = I_{dof/(dof+t^2)}(dof/2, 1/2). dof > 1e8 (and +inf) gives the normal
// limit, which is then closer than the incomplete beta in double precision.
// NaN for a NaN t or dof, or dof < 1.
double student_t_two_sided_p(double t, double dof);

// Regularised incomplete beta I_x(a, b) for x in [0, 1] and finite a, b > 0 (Lentz's continued
// fraction). Throws std::invalid_argument outside that domain: a NaN here means a caller bug, and
// it should not surface later as a silently "not significant" result.
double regularized_incomplete_beta(double x, double a, double b);

// Exact two-sided McNemar test on the discordant pairs of two runs scored on the same queries:
// b = queries run A gets right and run B wrong, c = the reverse. p = min(1, 2 P(X <= min(b, c)))
// with X ~ Binomial(b + c, 1/2); 1 when b + c == 0. Works in log space, so test sets of a million
// queries do not overflow. Throws std::invalid_argument for a negative count.
double mcnemar_exact_p(int64_t b, int64_t c);

// p < alpha; a NaN p (too few seeds) is never significant.
bool is_significant(double p, double alpha);

}  // namespace hnclip

#include "experiment/paired_statistics.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace hnclip {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kBetaEpsilon = 1e-15;          // relative change that ends the fraction
constexpr double kBetaTiny = 1e-300;            // Lentz's stand-in for a zero denominator
constexpr int kBetaMaxIterations = 1'000'000;   // far beyond what a, b = 1e10 need
constexpr double kNormalDof = 1e8;              // student_t_two_sided_p switches to the normal here
constexpr double kBinomialTailEpsilon = 1e-18;  // a term this small no longer moves the sum
constexpr double kRoundingSpread = 1e-9;        // a spread this far below the values is rounding

struct MeanStd {
  double mean = kNaN;
  double std = kNaN;
};

// The mean is taken as an offset from the first value so that identical values give exactly that
// value back and deviations of exactly zero: the zero-variance cases of compare_paired must see
// std == 0, not a rounding residue that turns "no spread" into "t = 1e16".
MeanStd mean_and_std(const std::vector<double>& values) {
  MeanStd out;
  if (values.empty()) return out;
  const double n = static_cast<double>(values.size());
  const double origin = values.front();
  double offset_sum = 0.0;
  for (double v : values) offset_sum += v - origin;
  out.mean = origin + offset_sum / n;
  if (values.size() < 2) return out;
  double squares = 0.0;
  for (double v : values) squares += (v - out.mean) * (v - out.mean);
  out.std = std::sqrt(squares / (n - 1.0));
  return out;
}

// Continued fraction of I_x(a, b) by the modified Lentz method (Numerical Recipes' betacf),
// times its prefactor; converges quickly for x < (a + 1) / (a + b + 2).
double beta_fraction(double x, double a, double b) {
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double qab = a + b;
  const double qap = a + 1.0;
  const double qam = a - 1.0;
  double c = 1.0;
  double d = 1.0 - qab * x / qap;
  if (std::fabs(d) < kBetaTiny) d = kBetaTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= kBetaMaxIterations; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kBetaTiny) d = kBetaTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kBetaTiny) c = kBetaTiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kBetaTiny) d = kBetaTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kBetaTiny) c = kBetaTiny;
    d = 1.0 / d;
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1.0) < kBetaEpsilon) return std::exp(log_front) * h / a;
  }
  std::ostringstream message;
  message << "regularized_incomplete_beta: continued fraction did not converge for x=" << x
          << ", a=" << a << ", b=" << b;
  throw std::runtime_error(message.str());
}

}  // namespace

SeedSummary summarize_seeds(const std::vector<double>& values) {
  std::vector<double> finite;
  finite.reserve(values.size());
  for (double v : values) {
    if (std::isfinite(v)) finite.push_back(v);
  }
  const MeanStd stats = mean_and_std(finite);
  SeedSummary out;
  out.n = static_cast<int>(finite.size());
  out.missing = static_cast<int>(values.size() - finite.size());
  out.mean = stats.mean;
  out.std = stats.std;
  return out;
}

PairedComparison compare_paired(const std::vector<double>& treatment,
                                const std::vector<double>& control) {
  if (treatment.size() != control.size()) {
    throw std::invalid_argument("compare_paired: treatment has " +
                                std::to_string(treatment.size()) + " values but control has " +
                                std::to_string(control.size()));
  }
  PairedComparison out;
  std::vector<double> diffs;
  diffs.reserve(treatment.size());
  double scale = 1.0;
  for (size_t i = 0; i < treatment.size(); ++i) {
    if (!std::isfinite(treatment[i]) || !std::isfinite(control[i])) continue;
    diffs.push_back(treatment[i] - control[i]);
    scale = std::max({scale, std::fabs(treatment[i]), std::fabs(control[i])});
    if (treatment[i] > control[i]) ++out.improved;
    if (treatment[i] < control[i]) ++out.worse;
  }
  out.n = static_cast<int>(diffs.size());
  const MeanStd stats = mean_and_std(diffs);
  out.mean_diff = stats.mean;
  out.std_diff = stats.std;
  // Differences equal in query counts need not be one double (100·1000/1064 − 100·999/1064 and
  // 100·300/1064 − 100·299/1064 differ in their last bits), and that residue would read as a
  // spread of 1e-15 and t = 1e13: it is no spread.
  if (out.std_diff <= kRoundingSpread * scale) out.std_diff = 0.0;
  if (out.n < 2 || out.std_diff == 0.0) return out;  // no t-test: see the header
  out.t = out.mean_diff / (out.std_diff / std::sqrt(static_cast<double>(out.n)));
  out.p_two_sided = student_t_two_sided_p(out.t, out.n - 1.0);
  return out;
}

const char* untested_reason(const PairedComparison& c) {
  if (c.n < 2) return "n < 2";
  if (c.std_diff == 0.0) return "no spread";
  return "";
}

double student_t_two_sided_p(double t, double dof) {
  if (std::isnan(t) || std::isnan(dof) || dof < 1.0) return kNaN;
  if (std::isinf(t)) return 0.0;
  // Past kNormalDof the t and normal tails differ by under 1e-8, while the rounding of
  // lgamma(dof / 2) in the incomplete beta keeps growing (8e-6 at dof 1e12).
  if (dof > kNormalDof) return std::erfc(std::fabs(t) / std::sqrt(2.0));
  const double t2 = t * t;
  return regularized_incomplete_beta(dof / (dof + t2), 0.5 * dof, 0.5);
}

double regularized_incomplete_beta(double x, double a, double b) {
  if (!(x >= 0.0 && x <= 1.0) || !(a > 0.0 && a < kInf) || !(b > 0.0 && b < kInf)) {
    std::ostringstream message;
    message << "regularized_incomplete_beta: needs x in [0, 1] and finite a, b > 0, got x=" << x
            << ", a=" << a << ", b=" << b;
    throw std::invalid_argument(message.str());
  }
  if (x == 0.0) return 0.0;
  if (x == 1.0) return 1.0;
  if (x > (a + 1.0) / (a + b + 2.0)) return 1.0 - beta_fraction(1.0 - x, b, a);
  return beta_fraction(x, a, b);
}

double mcnemar_exact_p(int64_t b, int64_t c) {
  if (b < 0 || c < 0) {
    throw std::invalid_argument("mcnemar_exact_p: discordant counts must be >= 0, got b=" +
                                std::to_string(b) + ", c=" + std::to_string(c));
  }
  const int64_t n = b + c;
  if (n == 0) return 1.0;
  const int64_t k = std::min(b, c);
  const double nd = static_cast<double>(n);
  const double kd = static_cast<double>(k);
  // P(X = k) is the largest term of the lower tail (k <= n/2); the rest are summed as ratios to it
  // walking down, so nothing underflows before the tail has stopped mattering.
  const double log_term_k = std::lgamma(nd + 1.0) - std::lgamma(kd + 1.0) -
                            std::lgamma(nd - kd + 1.0) - nd * std::log(2.0);
  double ratio = 1.0;
  double ratio_sum = 1.0;
  for (int64_t i = k; i > 0; --i) {
    ratio *= static_cast<double>(i) / static_cast<double>(n - i + 1);
    ratio_sum += ratio;
    if (ratio < kBinomialTailEpsilon * ratio_sum) break;
  }
  const double p = 2.0 * std::exp(log_term_k + std::log(ratio_sum));
  return std::min(1.0, p);
}

bool is_significant(double p, double alpha) { return !std::isnan(p) && p < alpha; }

}  // namespace hnclip

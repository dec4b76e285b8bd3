#include "train/probe_summary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace hnclip {

namespace {
double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  const double w = pos - static_cast<double>(lo);
  if (w == 0) return sorted[lo];  // also keeps inf values finite-safe (inf * 0 would be NaN)
  return sorted[lo] + w * (sorted[hi] - sorted[lo]);
}
}  // namespace

Quartiles quartiles(std::vector<double> values) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return std::isnan(v); }),
               values.end());
  Quartiles q;
  if (values.empty()) {
    q.q1 = q.median = q.q3 = std::numeric_limits<double>::quiet_NaN();
    return q;
  }
  std::sort(values.begin(), values.end());
  q.q1 = quantile(values, 0.25);
  q.median = quantile(values, 0.5);
  q.q3 = quantile(values, 0.75);
  return q;
}

std::vector<ProbeEpochSummary> summarize_probes(const std::vector<ProbeEvent>& probes) {
  std::map<int, std::vector<const ProbeEvent*>> by_epoch;
  for (const auto& p : probes) by_epoch[p.epoch].push_back(&p);
  std::vector<ProbeEpochSummary> out;
  for (const auto& [epoch, list] : by_epoch) {
    ProbeEpochSummary s;
    s.epoch = epoch;
    s.probes = static_cast<int64_t>(list.size());
    std::vector<double> ns, nb, ratio, cosine;
    int64_t solved = 0, zero = 0;
    for (const auto* p : list) {
      solved += p->loss_standard < kSolvedLoss ? 1 : 0;
      zero += p->grad_norm_standard == 0.0 ? 1 : 0;
      ns.push_back(p->grad_norm_standard);
      nb.push_back(p->grad_norm_boosted);
      ratio.push_back(p->grad_ratio);
      cosine.push_back(p->grad_cosine);
    }
    s.solved_fraction = static_cast<double>(solved) / static_cast<double>(s.probes);
    s.zero_grad_fraction = static_cast<double>(zero) / static_cast<double>(s.probes);
    s.grad_norm_standard = quartiles(ns);
    s.grad_norm_boosted = quartiles(nb);
    s.grad_ratio = quartiles(ratio);
    s.median_grad_cosine = quartiles(cosine).median;
    out.push_back(s);
  }
  return out;
}

}  // namespace hnclip

#include "progress_printer.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "text/significant_digits.h"
#include "train/probe_summary.h"

namespace hnclip::cli {

namespace {
constexpr int kLinesPerEpoch = 4;

std::string format(const char* fmt, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, a);
  return buf;
}
}  // namespace

void ProgressPrinter::on_step(const StepEvent& e) {
  if (e.epoch != epoch_) {
    epoch_ = e.epoch;
    steps_ = solved_ = 0;
    loss_sum_ = standard_sum_ = 0;
    epoch_start_wall_ = last_wall_;
    probes_.erase(std::remove_if(probes_.begin(), probes_.end(), [&](const ProbeEvent& p) { return p.epoch != e.epoch; }),
                  probes_.end());
  }
  ++steps_;
  solved_ += e.loss_standard < kSolvedLoss ? 1 : 0;
  loss_sum_ += e.loss;
  standard_sum_ += e.loss_standard;
  last_wall_ = e.wall_time_s;
  const int64_t in_epoch = (e.step - 1) % e.steps_per_epoch + 1;
  const int64_t every = std::max<int64_t>(1, e.steps_per_epoch / kLinesPerEpoch);
  if (in_epoch % every == 0 || in_epoch == e.steps_per_epoch) {
    out_ << "epoch " << e.epoch << " step " << in_epoch << "/" << e.steps_per_epoch << "  loss "
         << format("%.4f", e.loss) << " (InfoNCE " << format("%.2e", e.loss_standard)
         << ")  |grad| " << three_significant_digits(e.grad_norm) << "  lr " << format("%.2e", e.lr)
         << "  s " << format("%.1f", e.logit_scale) << "  " << format("%.1f", e.wall_time_s)
         << " s";
    // A data-parallel run: each rank's computing rate and its share of time in collectives.
    for (const auto& r : e.ranks) {
      out_ << (r.rank == 0 ? "\n         " : "  ·  ") << "rank " << r.rank << " "
           << format("%.0f", r.images_per_second) << " img/s, "
           << format("%.0f", 100 * r.collective_fraction) << "% in collectives";
    }
    out_ << std::endl;
  }
}

void ProgressPrinter::on_probe(const ProbeEvent& e) { probes_.push_back(e); }

void ProgressPrinter::on_eval(const EvalEvent& e) {
  out_ << (e.epoch == 0 ? std::string("start  ") : "epoch " + std::to_string(e.epoch)) << "  " << e.split
       << ": t2i R@1 " << format("%.2f", e.t2i.recall_at(1)) << " R@5 " << format("%.2f", e.t2i.recall_at(5))
       << " R@10 " << format("%.2f", e.t2i.recall_at(10)) << " | i2t R@1 " << format("%.2f", e.i2t.recall_at(1))
       << " R@5 " << format("%.2f", e.i2t.recall_at(5)) << " R@10 " << format("%.2f", e.i2t.recall_at(10));
  // A second evaluation of the same epoch (the validation split) gets its recall line only.
  const bool summarise = e.epoch != summarised_epoch_;
  summarised_epoch_ = e.epoch;
  if (summarise && e.epoch > 0 && steps_ > 0) {
    const double secs = last_wall_ - epoch_start_wall_;
    out_ << " | mean loss " << format("%.4f", loss_sum_ / steps_) << ", solved (InfoNCE < 1e-3) "
         << format("%.0f", 100.0 * solved_ / steps_) << "% of batches, " << format("%.1f", secs) << " s";
  }
  const auto summary = summarize_probes(probes_);
  if (summarise && e.epoch > 0 && !summary.empty() && summary.back().epoch == e.epoch) {
    const auto& p = summary.back();
    out_ << "\n         probes: " << p.probes << ", zero fp32 gradients "
         << format("%.0f", 100 * p.zero_grad_fraction) << "%, median |g| "
         << three_significant_digits(p.grad_norm_standard.median) << " (InfoNCE) vs "
         << three_significant_digits(p.grad_norm_boosted.median) << " (HN), ratio "
         << three_significant_digits(p.grad_ratio.median) << ", cosine "
         << format("%.3f", p.median_grad_cosine);
  }
  out_ << std::endl;
}

void ProgressPrinter::on_status(const StatusEvent& e) {
  if (e.status == "running") return;
  out_ << "run " << e.status << (e.message.empty() ? "" : ": " + e.message) << std::endl;
}

}  // namespace hnclip::cli

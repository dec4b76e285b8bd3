// `hnclip probes --run ID`: a run's gradient probes (paper Fig. 4/A8) and their per-epoch
// aggregates — how many probed batches plain InfoNCE already solves, vanished gradients, and how
// much larger the boosted loss's gradient is.

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli_support.h"
#include "commands.h"
#include "common_options.h"
#include "eval/caption_geometry.h"
#include "job/stored_run_config.h"
#include "store/run_store.h"
#include "train/probe_summary.h"

namespace hnclip::cli {

namespace {
// NaN/inf become JSON null (JSON has neither); CSV keeps "nan"/"inf" as printf writes them.
nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }
}  // namespace

CommandAction add_probes_command(CLI::App& app) {
  struct Options {
    CommonOptions common;
    int64_t run = 0;
    bool csv = false;
    bool summary = false;
  };
  auto o = std::make_shared<Options>();
  auto* cmd =
      app.add_subcommand("probes", "a run's gradient probes and their per-epoch aggregates");
  take_last_value(cmd);
  add_run_id_options(cmd, o->run);
  cmd->add_flag("--csv", o->csv, "CSV on stdout: one row per probe (with --summary: per epoch)");
  cmd->add_flag("--summary", o->summary,
                "with --csv: the per-epoch aggregates instead of the probes");
  add_common_options(cmd, o->common);
  return [o]() {
    RunStore store(o->common.stored_paths().database);
    const auto run = store.find_run(o->run);
    if (!run) {
      throw UsageError("run " + std::to_string(o->run) + ": no such run in " + store.path());
    }
    std::vector<ProbeEvent> probes;
    for (const auto& r : store.probes(o->run)) {
      probes.push_back(ProbeEvent{r.step, r.epoch, r.loss_standard, r.loss_boosted,
                                  r.grad_norm_standard, r.grad_norm_boosted, r.grad_ratio,
                                  r.grad_cosine, r.mass_share_plain, r.mass_share_boosted});
    }
    const auto epochs = summarize_probes(probes);
    if (probes.empty() && !o->common.json && !o->csv) {
      // An empty table said nothing about why there is nothing in it.
      std::string why;
      try {
        const TrainConfig c = stored_run_config(*run);
        const size_t steps = store.step_metrics(o->run).size();
        why = c.probe_every == 0
                  ? ": it was trained with --probe-every 0 (off)"
                  : ": it probes every " + std::to_string(c.probe_every) + " steps and has " +
                        std::to_string(steps) + " step" + (steps == 1 ? "" : "s") + " recorded";
      } catch (const ConfigError&) {
        // Its config cannot be read: no reason to give beyond the fact.
      }
      std::cout << "run " << o->run << " has no gradient probes" << why << "\n";
      return kExitOk;
    }
    if (o->common.json) {
      nlohmann::json out{{"probes", nlohmann::json::array()}, {"epochs", nlohmann::json::array()}};
      for (const auto& p : probes) {
        out["probes"].push_back({{"step", p.step},
                                 {"epoch", p.epoch},
                                 {"loss_standard", number(p.loss_standard)},
                                 {"loss_boosted", number(p.loss_boosted)},
                                 {"grad_norm_standard", number(p.grad_norm_standard)},
                                 {"grad_norm_boosted", number(p.grad_norm_boosted)},
                                 {"grad_ratio", number(p.grad_ratio)},
                                 {"grad_cosine", number(p.grad_cosine)}});
        // Where the gradient goes: per Ḡ bucket, the share of the negatives' softmax mass (both
        // directions pooled); absent for probes stored before it was recorded.
        if (!p.mass_share_plain.empty()) {
          auto& mass = out["probes"].back()["gradient_mass"];
          mass["buckets"] = geometry_bucket_names();
          mass["plain"] = nlohmann::json::array();
          mass["boosted"] = nlohmann::json::array();
          for (size_t b = 0; b < p.mass_share_plain.size(); ++b) {
            mass["plain"].push_back(number(p.mass_share_plain[b]));
            mass["boosted"].push_back(number(p.mass_share_boosted[b]));
          }
        }
      }
      for (const auto& e : epochs) {
        out["epochs"].push_back(
            {{"epoch", e.epoch},
             {"probes", e.probes},
             {"solved_fraction", e.solved_fraction},
             {"zero_grad_fraction", e.zero_grad_fraction},
             {"median_grad_norm_standard", number(e.grad_norm_standard.median)},
             {"iqr_grad_norm_standard",
              {number(e.grad_norm_standard.q1), number(e.grad_norm_standard.q3)}},
             {"median_grad_norm_boosted", number(e.grad_norm_boosted.median)},
             {"iqr_grad_norm_boosted",
              {number(e.grad_norm_boosted.q1), number(e.grad_norm_boosted.q3)}},
             {"median_grad_ratio", number(e.grad_ratio.median)},
             {"iqr_grad_ratio", {number(e.grad_ratio.q1), number(e.grad_ratio.q3)}},
             {"median_grad_cosine", number(e.median_grad_cosine)}});
      }
      std::cout << out.dump() << std::endl;
    } else if (o->csv && !o->summary) {
      std::printf(
          "step,epoch,loss_standard,loss_boosted,grad_norm_standard,grad_norm_boosted,grad_ratio,"
          "grad_cosine\n");
      for (const auto& p : probes) {
        std::printf("%lld,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", static_cast<long long>(p.step),
                    p.epoch, p.loss_standard, p.loss_boosted, p.grad_norm_standard,
                    p.grad_norm_boosted, p.grad_ratio, p.grad_cosine);
      }
    } else {
      // The table a person reads gives the two shares in percent, as train's epoch lines do
      // ("solved … 25% of batches"); it read "0.00" beside them. The CSV keeps fractions.
      const double scale = o->csv ? 1.0 : 100.0;
      const char* fmt = o->csv ? "%d,%lld,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n"
                               : "%5d %6lld %6.1f%% %9.1f%% %14.4g %14.4g %11.4g %10.4f\n";
      std::printf(
          o->csv ? "epoch,probes,solved_fraction,zero_grad_fraction,median_grad_norm_standard,"
                   "median_grad_norm_boosted,median_grad_ratio,median_grad_cosine\n"
                 : "epoch probes  solved  zero-grad  median|g| std  median|g| HN  median ratio "
                   " median cos\n");
      for (const auto& e : epochs) {
        std::printf(fmt, e.epoch, static_cast<long long>(e.probes), scale * e.solved_fraction,
                    scale * e.zero_grad_fraction, e.grad_norm_standard.median,
                    e.grad_norm_boosted.median, e.grad_ratio.median, e.median_grad_cosine);
      }
      if (!o->csv) {
        std::printf(
            "(of the probed batches: solved, plain InfoNCE < 1e-3; zero-grad, fp32 gradient norm "
            "exactly 0. train's epoch lines count solved over every batch)\n");
      }
    }
    return kExitOk;
  };
}

}  // namespace hnclip::cli

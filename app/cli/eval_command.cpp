// `hnclip eval --run ID`: re-evaluate a stored run's checkpoint and store the result — on its own
// test split, or on another benchmark or split (a transfer evaluation, e.g. `--split shifted`).

#include <iomanip>
#include <iostream>
#include <memory>

#include "cli_support.h"
#include "commands.h"
#include "common_options.h"
#include "job/run_evaluation.h"

namespace hnclip::cli {

CommandAction add_eval_command(CLI::App& app) {
  struct Options {
    CommonOptions common;
    int64_t run = 0;
    std::string epoch = "best";
    EvalTarget target;
    uint64_t data_seed = 0;
    double consensus_alpha = 0;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "eval",
      "evaluate a run's checkpoint on its test split, or on another benchmark / split (stored "
      "with the run as a transfer evaluation)");
  take_last_value(cmd);
  add_run_id_options(cmd, o->run);
  cmd->add_option("--epoch", o->epoch, "best | last | N")->capture_default_str();
  add_eval_target_options(cmd, o->target, o->data_seed);
  cmd->add_option("--consensus-alpha", o->consensus_alpha,
                  "also rank text→image with caption consensus: a query caption's score for an "
                  "image fused with its similarity to the image's other captions, weight α in "
                  "[0, 1] (0 = off); shown beside the plain recall, not stored")
      ->capture_default_str();
  add_common_options(cmd, o->common);
  return [o, cmd]() {
    if (cmd->count("--data-seed") > 0) o->target.data_seed = o->data_seed;
    const auto r = evaluate_stored_run(
        o->run, o->epoch, o->common.stored_paths(),
        [](const std::string& m) { std::cerr << m << std::endl; }, o->target, o->consensus_alpha);
    if (o->common.json) {
      nlohmann::json j{{"run_id", r.run_id},
                       {"epoch", r.eval.epoch},
                       {"checkpoint", r.checkpoint},
                       {"benchmark", r.benchmark},
                       {"split", r.eval.split},
                       {"test_set", r.test_set},
                       {"transfer", r.transfer},
                       {"training_images", r.training_images ? nlohmann::json(*r.training_images)
                                                             : nlohmann::json(nullptr)},
                       {"n_test", r.test_images},
                       {"n_test_captions", r.test_captions},
                       {"t2i", recall_json(r.eval.t2i)},
                       {"i2t", recall_json(r.eval.i2t)}};
      if (r.consensus) {
        j["t2i_consensus"] = recall_json(r.consensus->t2i);
        j["consensus_alpha"] = r.consensus->alpha;
        j["captions_without_siblings"] = r.consensus->captions_without_siblings;
      }
      std::cout << j.dump() << std::endl;
    } else {
      std::cout << "run " << r.run_id << ", epoch " << r.eval.epoch << " ("
                << (r.checkpoint.empty() ? "its starting model's random weights" : r.checkpoint)
                << "), " << r.test_images << " images of " << r.test_set
                << (r.transfer ? " (transfer evaluation)" : "") << ":\n";
      for (const auto* d : {&r.eval.t2i, &r.eval.i2t}) {
        std::cout << "  " << d->direction << ":";
        for (const auto& [k, v] : d->recall) std::cout << "  R@" << k << " " << v;
        std::cout << "\n";
      }
      if (const auto& c = r.consensus) {
        // Fused beside unfused, K by K, so the change is read off one table.
        std::cout << "  caption consensus, alpha " << c->alpha << " (text→image; not stored):\n";
        std::cout << "    " << std::left << std::setw(10) << "K" << std::setw(10) << "plain"
                  << std::setw(10) << "fused" << "change\n";
        for (const auto& [k, fused] : c->t2i.recall) {
          const double plain = r.eval.t2i.recall_at(k);
          std::cout << "    " << std::setw(10) << ("R@" + std::to_string(k)) << std::setw(10)
                    << plain << std::setw(10) << fused << std::showpos << fused - plain
                    << std::noshowpos << "\n";
        }
        if (c->captions_without_siblings > 0) {
          std::cout << "    " << c->captions_without_siblings << " of " << r.test_captions
                    << " query captions are their image's only caption: that image keeps its "
                       "plain score (leave-one-out)\n";
        }
      }
    }
    return kExitOk;
  };
}

}  // namespace hnclip::cli

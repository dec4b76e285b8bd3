// `hnclip eval --run ID`: re-evaluate a stored run's checkpoint and store the result — on its own
// test split, or on another benchmark or split (a transfer evaluation, e.g. `--split shifted`).

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
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "eval",
      "evaluate a run's checkpoint on its test split, or on another benchmark / split (stored "
      "with the run as a transfer evaluation)");
  take_last_value(cmd);
  cmd->add_option("--run", o->run, "run id")->required();
  cmd->add_option("--epoch", o->epoch, "best | last | N")->capture_default_str();
  add_eval_target_options(cmd, o->target, o->data_seed);
  add_common_options(cmd, o->common);
  return [o, cmd]() {
    if (cmd->count("--data-seed") > 0) o->target.data_seed = o->data_seed;
    const auto r = evaluate_stored_run(o->run, o->epoch, o->common.paths(),
                                       [](const std::string& m) { std::cerr << m << std::endl; },
                                       o->target);
    if (o->common.json) {
      std::cout << nlohmann::json{{"run_id", r.run_id}, {"epoch", r.eval.epoch}, {"checkpoint", r.checkpoint},
                                  {"benchmark", r.benchmark}, {"split", r.eval.split},
                                  {"transfer", r.transfer},
                                  {"n_test", r.test_images}, {"n_test_captions", r.test_captions},
                                  {"t2i", recall_json(r.eval.t2i)}, {"i2t", recall_json(r.eval.i2t)}}
                       .dump()
                << std::endl;
    } else {
      std::cout << "run " << r.run_id << ", epoch " << r.eval.epoch << " (" << r.checkpoint << "), "
                << r.test_images << " images of " << r.benchmark << " / " << r.eval.split
                << (r.transfer ? " (transfer evaluation)" : "") << ":\n";
      for (const auto* d : {&r.eval.t2i, &r.eval.i2t}) {
        std::cout << "  " << d->direction << ":";
        for (const auto& [k, v] : d->recall) std::cout << "  R@" << k << " " << v;
        std::cout << "\n";
      }
    }
    return kExitOk;
  };
}

}  // namespace hnclip::cli

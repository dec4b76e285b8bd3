// `hnclip experiments` (the experiment list) and `hnclip experiment show ID` / `resume ID`.

#include <iostream>
#include <memory>

#include "cli_support.h"
#include "commands.h"
#include "common_options.h"
#include "experiment_output.h"
#include "store/run_store.h"

namespace hnclip::cli {

CommandAction add_experiments_command(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  auto* cmd = app.add_subcommand("experiments", "list the experiments (newest first)");
  take_last_value(cmd);
  add_common_options(cmd, *o);
  return [o]() {
    RunStore store(o->paths().database);
    store.mark_dead_experiments_interrupted();
    nlohmann::json list = nlohmann::json::array();
    for (const auto& e : store.list_experiments()) {
      const auto slots = store.experiment_slots(e.id);
      int finished = 0, reused = 0;
      for (const auto& s : slots) {
        if (s.run_id == 0) continue;
        const auto run = store.find_run(s.run_id);
        finished += run && run->status == RunStatus::Finished;
        reused += s.reused;
      }
      const auto cells = store.experiment_cells(e.id).size();
      if (o->json) {
        list.push_back({{"id", e.id},
                        {"name", e.name},
                        {"status", e.status},
                        {"status_message", e.status_message},
                        {"cells", cells},
                        {"runs", slots.size()},
                        {"runs_finished", finished},
                        {"runs_reused", reused},
                        {"created_at_ms", e.created_at_ms},
                        {"finished_at_ms", e.finished_at_ms}});
      } else {
        std::cout << e.id << "  " << e.name << "  " << e.status << "  " << finished << "/"
                  << slots.size() << " runs finished (" << reused << " reused), " << cells
                  << " configurations" << (e.status_message.empty() ? "" : "  — " + e.status_message)
                  << "\n";
      }
    }
    if (o->json) std::cout << list.dump() << std::endl;
    return kExitOk;
  };
}

CommandAction add_experiment_command(CLI::App& app) {
  struct Options {
    CommonOptions common;
    int64_t id = 0;
    bool csv = false;
    bool latex = false;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("experiment", "one experiment: show its table, or resume it");
  cmd->require_subcommand(1);
  auto* show = cmd->add_subcommand("show", "the experiment's tables (mean ± std over seeds, "
                                           "paired comparisons with its controls)");
  auto* resume = cmd->add_subcommand(
      "resume", "train what the experiment still lacks: interrupted runs resume from their "
                "checkpoint, empty slots get new runs; then print its table");
  for (auto* sub : {show, resume}) {
    take_last_value(sub);
    sub->add_option("id", o->id, "experiment id")->required();
    add_common_options(sub, o->common);
    sub->add_flag("--csv", o->csv, "the table as CSV");
    sub->add_flag("--latex", o->latex, "the table as LaTeX (booktabs)");
  }
  return [o, show]() {
    const ReportFormat format = report_format(o->common.json, o->csv, o->latex);
    const JobPaths paths = o->common.paths();
    {
      RunStore store(paths.database);
      store.mark_dead_experiments_interrupted();
      if (!store.find_experiment(o->id)) {
        throw UsageError("no experiment " + std::to_string(o->id) + " in " + paths.database);
      }
    }
    if (show->parsed()) {
      print_experiment_report(paths, o->id, format);
      return kExitOk;
    }
    return run_experiment_to_end(o->id, paths, format);
  };
}

}  // namespace hnclip::cli

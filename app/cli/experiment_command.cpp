// `hnclip experiments` (the experiment list) and `hnclip experiment show ID` / `resume ID` /
// `eval ID` (every run's selected checkpoint on other data: the transfer columns).

#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>

#include "cli_support.h"
#include "commands.h"
#include "common_options.h"
#include "experiment/experiment_results.h"
#include "experiment_output.h"
#include "job/run_evaluation.h"
#include "store/run_store.h"
#include "text/control_character.h"
#include "text/terminal_column.h"

namespace hnclip::cli {

CommandAction add_experiments_command(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  auto* cmd = app.add_subcommand("experiments", "list the experiments (newest first)");
  take_last_value(cmd);
  add_common_options(cmd, *o);
  return [o]() {
    RunStore store(o->stored_paths().database);
    store.mark_dead_experiments_interrupted();
    struct Row {
      ExperimentRecord e;
      size_t runs = 0, cells = 0;
      int finished = 0, reused = 0;
    };
    std::vector<Row> rows;
    for (const auto& e : store.list_experiments()) {
      Row row{e, 0, 0, 0, 0};
      const auto slots = store.experiment_slots(e.id);
      for (const auto& s : slots) {
        if (s.run_id == 0) continue;
        const auto run = store.find_run(s.run_id);
        row.finished += run && run->status == RunStatus::Finished;
        row.reused += s.reused;
      }
      row.runs = slots.size();
      row.cells = store.experiment_cells(e.id).size();
      rows.push_back(std::move(row));
    }
    if (o->json) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& r : rows) {
        list.push_back({{"id", r.e.id},
                        {"name", r.e.name},
                        {"status", r.e.status},
                        {"status_message", r.e.status_message},
                        {"cells", r.cells},
                        {"runs", r.runs},
                        {"runs_finished", r.finished},
                        {"runs_reused", r.reused},
                        {"created_at_ms", r.e.created_at_ms},
                        {"finished_at_ms", r.e.finished_at_ms}});
      }
      std::cout << list.dump() << std::endl;
      return kExitOk;
    }
    if (rows.empty()) {  // a header over nothing read as a listing that failed
      std::cout << "no experiments in " << store.path() << " (`hnclip sweep` trains one)"
                << std::endl;
      return kExitOk;
    }
    // A table whose columns line up however long the names (in characters, not bytes).
    std::vector<std::string> names, statuses, finished;
    for (const auto& r : rows) {
      names.push_back(one_line(r.e.name));  // stored before names had to be one line
      statuses.push_back(r.e.status);
      finished.push_back(std::to_string(r.finished) + "/" + std::to_string(r.runs));
    }
    const size_t name_width = column_width("name", names, kMaxNameColumn);
    const size_t status_width = column_width("status", statuses, kMaxNameColumn);
    const size_t finished_width = column_width("finished", finished, kMaxNameColumn);
    std::printf("%5s  %s%s%s%6s  %s\n", "id", pad_column("name", name_width + 2).c_str(),
                pad_column("status", status_width + 2).c_str(),
                pad_column("finished", finished_width + 2).c_str(), "reused", "configurations");
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      const std::string message = r.e.status_message.empty() ? "" : "  — " + r.e.status_message;
      std::printf("%5lld  %s%s%s%6d  %14zu%s\n", static_cast<long long>(r.e.id),
                  pad_column(fit_column(names[i], name_width), name_width + 2).c_str(),
                  pad_column(statuses[i], status_width + 2).c_str(),
                  pad_column(finished[i], finished_width + 2).c_str(), r.reused, r.cells,
                  message.c_str());
    }
    return kExitOk;
  };
}

CommandAction add_experiment_command(CLI::App& app) {
  struct Options {
    CommonOptions common;
    int64_t id = 0;
    bool csv = false;
    bool latex = false;
    EvalTarget target;
    uint64_t data_seed = 0;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("experiment", "one experiment: show its table, or resume it");
  cmd->require_subcommand(1);
  auto* show = cmd->add_subcommand("show", "the experiment's tables (mean ± std over seeds, "
                                           "paired comparisons with its controls)");
  auto* resume = cmd->add_subcommand(
      "resume", "train what the experiment still lacks: interrupted runs resume from their "
                "checkpoint, empty slots get new runs; then print its table");
  auto* eval = cmd->add_subcommand(
      "eval", "evaluate every run's selected checkpoint on another benchmark or split and store "
              "it (cross-domain transfer); then print the table with its transfer columns");
  for (auto* sub : {show, resume, eval}) {
    take_last_value(sub);
    sub->add_option("id", o->id, "experiment id")->required();
    add_common_options(sub, o->common);
    sub->add_flag("--csv", o->csv, "the table as CSV");
    sub->add_flag("--latex", o->latex, "the table as LaTeX (booktabs)");
  }
  add_eval_target_options(eval, o->target, o->data_seed);
  return [o, show, eval]() {
    const ReportFormat format = report_format(o->common.json, o->csv, o->latex);
    const JobPaths paths = o->common.stored_paths();
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
    if (eval->parsed()) {
      if (eval->count("--data-seed") > 0) o->target.data_seed = o->data_seed;
      if (o->target.benchmark.empty() && o->target.root.empty() && o->target.benchmark_size.empty() &&
          !o->target.data_seed && o->target.split.empty()) {
        throw UsageError("experiment eval: say what to evaluate on (--benchmark, --data-root, "
                         "--benchmark-size, --data-seed or --split)");
      }
      std::vector<std::pair<int64_t, int>> chosen;  // (run, selected epoch)
      {
        RunStore store(paths.database);
        for (const auto& cell : experiment_results(store, o->id).cells)
          for (const auto& s : cell.seeds)
            if (s.epoch >= 0) chosen.emplace_back(s.run_id, s.epoch);
      }
      if (chosen.empty()) throw UsageError("experiment " + std::to_string(o->id) + " has no finished run yet");
      auto r1 = [](const RetrievalResult& d) {
        for (const auto& [k, v] : d.recall)
          if (k == 1) return v;
        return std::numeric_limits<double>::quiet_NaN();
      };
      size_t done = 0;
      for (const auto& [run, epoch] : chosen) {
        const auto r = evaluate_stored_run(run, std::to_string(epoch), paths, {}, o->target);
        std::cerr << "[" << ++done << "/" << chosen.size() << "] run " << run << " epoch " << epoch
                  << " on " << r.benchmark << " / " << r.eval.split << ": R@1 t2i " << r1(r.eval.t2i)
                  << ", i2t " << r1(r.eval.i2t) << std::endl;
      }
      print_experiment_report(paths, o->id, format);
      return kExitOk;
    }
    return run_experiment_to_end(o->id, paths, format);
  };
}

}  // namespace hnclip::cli

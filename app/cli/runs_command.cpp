// `hnclip runs` (the run table) and `hnclip show ID` (one run in full).

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "cli_support.h"
#include "commands.h"
#include "common_options.h"
#include "data/benchmark_summary.h"
#include "job/located_checkpoints.h"
#include "job/stored_best_epoch.h"
#include "job/stored_run_config.h"
#include "job/stored_run_test_set.h"
#include "job/stored_transfer_evaluations.h"
#include "store/run_store.h"
#include "stored_recall.h"
#include "text/control_character.h"
#include "text/terminal_column.h"
#include "train/best_epoch.h"
#include "train/run_test_set.h"

namespace hnclip::cli {

namespace {

std::string iso_time(int64_t ms) {
  if (ms <= 0) return "";
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

nlohmann::json evaluations_json(const RecallTable& table) {
  nlohmann::json epochs = nlohmann::json::array();
  for (const auto& [epoch, dirs] : table) {
    nlohmann::json e{{"epoch", epoch}};
    for (const auto& [dir, ks] : dirs) {
      nlohmann::json rec;
      for (const auto& [k, v] : ks) rec["R@" + std::to_string(k)] = v;
      e[dir] = rec;
    }
    epochs.push_back(e);
  }
  return epochs;
}

// A run's transfer evaluations (`eval --split/--benchmark`, `experiment eval`): one entry per
// (data, split, epoch) with both directions' recall at every K, in the store's order.
// "training_split" says the run trained on those images (its own data's training split): a
// recall on them measures memory, not transfer; "training_images" how many of its images are the
// run's training images under another split or manifest (null: not counted).
nlohmann::json transfer_evaluations_json(const RunStore& store, int64_t run,
                                         const std::optional<TrainConfig>& config) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e :
       group_transfer_evaluations(store.transfer_evals(run), config ? &*config : nullptr)) {
    nlohmann::json j{{"benchmark", e.benchmark},
                     {"split", e.split},
                     {"epoch", e.epoch},
                     {"images", e.images},
                     {"captions", e.captions},
                     {"training_split", e.training_split},
                     // null: not counted (evaluated before this was kept, or unreadable data)
                     {"training_images", e.training_images ? nlohmann::json(*e.training_images)
                                                           : nlohmann::json(nullptr)},
                     {"evaluated", iso_time(e.evaluated_at_ms)}};
    for (const auto& [direction, ks] : e.recall)
      for (const auto& [k, recall] : ks) j[direction]["R@" + std::to_string(k)] = recall;
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::json run_json(const RunStore& store, const RunRecord& r, bool full) {
  // A config this version cannot read (another version's, or edited by hand) does not hide the
  // run, nor every other run of the list: its settings are null and "config_error" says why; its
  // recall is read on TrainConfig's default test split, as everywhere else (run_test_set).
  std::optional<TrainConfig> config;
  std::string config_error;
  try {
    config = stored_run_config(r);
  } catch (const ConfigError& e) {
    config_error = e.what();
  }
  const RunTestSet test_set =
      config ? stored_run_test_set(*config, r.data_summary_json) : run_test_set(r.config_json);
  const auto table = recall_table(store, r.id, test_set.split);
  const int best_epoch = best_stored_epoch(store.epoch_evals(r.id), test_set.split).epoch;
  nlohmann::json j{{"id", r.id},
                   {"name", r.name},
                   {"status", to_string(r.status)},
                   {"message", r.status_message},
                   {"device", r.device},
                   {"git_rev", r.git_rev},
                   {"created", iso_time(r.created_at_ms)},
                   {"started", iso_time(r.started_at_ms)},
                   {"finished", iso_time(r.finished_at_ms)},
                   {"best_epoch", best_epoch},
                   // What its recall was measured on: runs of different sets do not compare.
                   {"test_set", test_set.label},
                   {"framework", nullptr},
                   {"hn", nullptr},
                   {"gamma", nullptr},
                   {"gbar", nullptr},
                   {"epochs", nullptr}};
  if (config) {
    j["framework"] = to_string(config->framework);
    j["hn"] = config->hn;
    j["gamma"] = config->loss_gamma;
    j["gbar"] = to_string(gbar_in_effect(*config));
    j["epochs"] = config->epochs;
  } else {
    j["config_error"] = config_error;
  }
  // best_epoch is never 0 (train/best_epoch.h): the starting checkpoint's score is "start".
  auto put_epoch = [&](int epoch, const char* key) {
    if (auto recall = epoch_recall_json(table, epoch); !recall.is_null()) j[key] = recall;
  };
  if (best_epoch > kStartEpoch) put_epoch(best_epoch, "best");
  put_epoch(kStartEpoch, "start");
  if (full) {
    const auto stored = nlohmann::json::parse(r.config_json, nullptr, false);      // as stored
    j["config"] = stored.is_discarded() ? nlohmann::json(r.config_json) : stored;  // not JSON: text
    j["data"] = nlohmann::json::parse(r.data_summary_json, nullptr, false);  // {} for older runs
    j["evaluations"] = evaluations_json(table);
    if (config && !config->val_split.empty()) {
      j["val_split"] = config->val_split;
      j["val_evaluations"] = evaluations_json(recall_table(store, r.id, config->val_split));
    }
    j["transfer_evaluations"] = transfer_evaluations_json(store, r.id, config);
    nlohmann::json ckpts = nlohmann::json::array();
    for (const auto& c : located_checkpoints(store, r.id))
      ckpts.push_back({{"epoch", c.epoch},
                       {"step", c.step},
                       {"path", c.path},
                       {"mean_r1", c.mean_r1},
                       {"exists", std::filesystem::is_regular_file(c.path)}});
    j["checkpoints"] = ckpts;
    j["steps"] = store.step_metrics(r.id).size();
    nlohmann::json snaps = nlohmann::json::array();
    for (const auto& g : store.gbar_snapshots(r.id)) {
      snaps.push_back({{"epoch", g.epoch},
                       {"batch", g.batch},
                       {"size", g.captions.size()},
                       {"max_value", g.max_value},
                       {"max_pair", {g.captions[g.max_i], g.captions[g.max_j]}}});
    }
    j["gbar_snapshots"] = snaps;
  }
  return j;
}

std::string fixed(double v, int digits = 2) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

CommandAction add_runs_command(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  auto* cmd = app.add_subcommand("runs", "list the runs in the database");
  take_last_value(cmd);
  add_common_options(cmd, *o);
  return [o]() {
    RunStore store(o->stored_paths().database);
    store.mark_dead_runs_interrupted();
    const auto runs = store.list_runs();
    if (o->json) {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& r : runs) arr.push_back(run_json(store, r, false));
      std::cout << arr.dump() << std::endl;
      return kExitOk;
    }
    if (runs.empty()) {  // a header over nothing read as a listing that failed
      std::cout << "no runs in " << store.path() << " (`hnclip train` or `sweep` adds them)"
                << std::endl;
      return kExitOk;
    }
    // The name column is as wide as the longest name up to kMaxNameColumn (an experiment's runs
    // differ only at the end of their names: "grid · HN γ 0.5 · s 10 fixed · seed 2"), in
    // characters, not bytes; a longer name keeps its start and end around "…", as does a long
    // test set (its split is at the end).
    std::vector<std::string> names, test_sets;
    std::vector<nlohmann::json> rows;
    for (const auto& r : runs) {
      names.push_back(one_line(r.name));  // a name stored before names had to be one line
      rows.push_back(run_json(store, r, false));
      test_sets.push_back(rows.back()["test_set"].get<std::string>());
    }
    const size_t name_width = column_width("name", names, kMaxNameColumn);
    const size_t set_width = column_width("test set", test_sets, kMaxTestSetColumn);
    // "start" is epoch 0 (the starting checkpoint); "best" is the best fine-tuned epoch.
    std::printf("%5s  %s%-11s %-17s %6s %-10s %6s  %s%14s %5s %14s  %s\n", "id",
                pad_column("name", name_width + 1).c_str(), "status", "framework", "gamma", "gbar",
                "epochs", pad_column("test set", set_width + 1).c_str(), "start t2i/i2t", "best",
                "best t2i/i2t", "created");
    auto r1_pair = [](const nlohmann::json& j, const char* key) {
      if (!j.contains(key)) return std::string("-");
      auto one = [&](const char* dir) {
        return j[key].contains(dir) && j[key][dir].contains("R@1")
                   ? fixed(j[key][dir]["R@1"].get<double>())
                   : std::string("-");
      };
      return one("t2i") + "/" + one("i2t");
    };
    for (size_t i = 0; i < runs.size(); ++i) {
      const auto& r = runs[i];
      const auto& j = rows[i];
      // Unreadable config: "?" settings (the test-set column says why).
      const bool read = !j.contains("config_error");
      const std::string framework =
          read ? j["framework"].get<std::string>() + (j["hn"].get<bool>() ? "" : " (HN off)") : "?";
      std::printf("%5lld  %s%-11s %-17s %6s %-10s %6s  %s%14s %5s %14s  %s\n",
                  static_cast<long long>(r.id),
                  pad_column(fit_column(names[i], name_width), name_width + 1).c_str(),
                  to_string(r.status).c_str(), framework.c_str(),
                  read ? fixed(j["gamma"].get<double>()).c_str() : "?",
                  read ? j["gbar"].get<std::string>().c_str() : "?",
                  read ? std::to_string(j["epochs"].get<int>()).c_str() : "?",
                  pad_column(fit_column(test_sets[i], set_width), set_width + 1).c_str(),
                  r1_pair(j, "start").c_str(),
                  j["best_epoch"].get<int>() > kStartEpoch
                      ? std::to_string(j["best_epoch"].get<int>()).c_str()
                      : "-",
                  r1_pair(j, "best").c_str(), j["created"].get<std::string>().c_str());
    }
    return kExitOk;
  };
}

CommandAction add_show_command(CLI::App& app) {
  struct Options {
    CommonOptions common;
    int64_t id = 0;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "show", "show one run: config, status, recall per epoch, transfer evaluations, checkpoints");
  take_last_value(cmd);
  cmd->add_option("id", o->id, "run id")->required();
  add_common_options(cmd, o->common);
  return [o]() {
    RunStore store(o->common.stored_paths().database);
    store.mark_dead_runs_interrupted();
    const auto run = store.find_run(o->id);
    if (!run)
      throw UsageError("run " + std::to_string(o->id) + " does not exist in " + store.path());
    const auto j = run_json(store, *run, true);
    if (o->common.json) {
      std::cout << j.dump() << std::endl;
      return kExitOk;
    }
    std::cout << "run " << run->id << (run->name.empty() ? "" : " '" + run->name + "'") << ": "
              << to_string(run->status)
              << (run->status_message.empty() ? "" : " (" + run->status_message + ")") << "\n"
              << (j.contains("config_error")
                      ? "  " + j["config_error"].get<std::string>() +
                            "\n  recall below is of split '" +
                            run_test_set(run->config_json).split + "', the default test split\n"
                      : "  tested on " + j["test_set"].get<std::string>() + "\n")
              << "  device " << run->device << ", created " << j["created"].get<std::string>()
              << ", git " << run->git_rev << ", " << j["steps"].get<size_t>() << " steps recorded\n"
              << "  config " << j["config"].dump() << "\n"
              << (j["data"].contains("splits")
                      ? "  data " + describe_benchmark_summary(j["data"]) + "\n"
                      : "")
              << "  epoch   t2i R@1   R@5  R@10 | i2t R@1   R@5  R@10   (s: start, *: best)\n";
    // best_epoch: the row marked "*" (the test split's rule; no row of a validation split).
    // `data`: each row ends with the data it was measured on (transfer evaluations).
    const auto print_rows = [&](const nlohmann::json& evaluations, int best_epoch,
                                bool data = false) {
      for (const auto& e : evaluations) {
        auto r = [&](const char* d, const char* k) {
          return e.contains(d) ? fixed(e[d].value(k, 0.0)) : std::string("-");
        };
        std::printf("  %5d %s %9s %5s %5s | %7s %5s %5s", e["epoch"].get<int>(),
                    e["epoch"].get<int>() == kStartEpoch  ? "s"
                    : e["epoch"].get<int>() == best_epoch ? "*"
                                                          : " ",
                    r("t2i", "R@1").c_str(), r("t2i", "R@5").c_str(), r("t2i", "R@10").c_str(),
                    r("i2t", "R@1").c_str(), r("i2t", "R@5").c_str(), r("i2t", "R@10").c_str());
        if (data)
          std::cout << "   " << one_line(e["benchmark"].get<std::string>()) << " / "
                    << one_line(e["split"].get<std::string>()) << " (" << e["images"].get<int64_t>()
                    << " images, " << e["captions"].get<int64_t>() << " captions"
                    << (e["training_split"].get<bool>() ? "; its training split" : "")
                    << (e.value("training_images", nlohmann::json()).is_number_integer() &&
                                e["training_images"].get<int64_t>() > 0
                            ? "; " + std::to_string(e["training_images"].get<int64_t>()) +
                                  " of them trained on"
                            : std::string())
                    << ")";
        std::cout << "\n";
      }
    };
    print_rows(j["evaluations"], j["best_epoch"].get<int>());
    if (j.contains("val_evaluations")) {
      std::cout << "  validation split " << j["val_split"].get<std::string>()
                << " (not used for the best epoch):\n";
      print_rows(j["val_evaluations"], -1);
    }
    if (!j["transfer_evaluations"].empty()) {
      std::cout << "  transfer evaluations (other data; they never choose the best epoch):\n";
      print_rows(j["transfer_evaluations"], -1, true);
    }
    for (const auto& c : j["checkpoints"])
      std::cout << "  checkpoint epoch " << c["epoch"] << ": " << c["path"].get<std::string>()
                << (c["exists"].get<bool>() ? "" : " (missing: eval, export and resume of it fail)")
                << "\n";
    return kExitOk;
  };
}

}  // namespace hnclip::cli

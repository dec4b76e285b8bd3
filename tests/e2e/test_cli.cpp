// End-to-end tests of the `hnclip` CLI on the built-in benchmark (size small): exit codes and
// one-line errors for bad input, nothing stored is lost, the --json shapes, Ctrl-C, kill + resume.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include "job/workbench_paths.h"
#include "store/run_store.h"
#include "support/cli_runner.h"
#include "support/generated_manifest.h"
#include "support/test_dirs.h"
#include "text/terminal_column.h"
#include "text/unicode_text.h"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

using Result = hnclip::test::CliResult;
using hnclip::run_checkpoint_dir;
using hnclip::test::expect_one_line_error;

// A table printed by `runs` or `experiments` whose rows are all "finished": the status column
// starts at the same character (not byte) in the header and in each of its `rows` rows.
void expect_status_column_aligned(const std::string& table, int rows) {
  auto column_of = [](const std::string& line, const std::string& word) {
    const size_t at = line.find(word);
    return at == std::string::npos ? at : hnclip::display_width(line.substr(0, at));
  };
  std::istringstream lines(table);
  std::string header, line;
  std::getline(lines, header);
  const size_t status = column_of(header, "status");
  ASSERT_NE(status, std::string::npos) << table;
  int seen = 0;
  while (std::getline(lines, line)) {
    EXPECT_EQ(column_of(line, "finished"), status) << header << "\n" << line;
    ++seen;
  }
  EXPECT_EQ(seen, rows) << table;
}

// Runs one SQL statement on a database file, as another program editing it would.
void sql(const std::string& db, const std::string& statement) {
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(raw, statement.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(raw);
}

class Cli : public ::testing::Test {
 protected:
  hnclip::test::ScratchDir dir;
  std::string db() const { return (dir / "runs.db").string(); }
  std::string common() const {
    return " --db " + db() + " --cache-dir " + (dir / "cache").string();
  }
  Result hnclip(const std::string& args) const { return hnclip::test::run_hnclip(args); }
  static std::string small_train() { return "train --benchmark-size small" + quick_train(); }
  // The same without the built-in benchmark's size, for a data set on disk (which refuses it).
  static std::string quick_train() { return " --epochs 2 --batch 32 --lr 1e-3 --threads 1"; }
  // A PNG of the generated built-in benchmark (any one).
  std::string any_image() const {
    for (const auto& e : fs::recursive_directory_iterator(dir / "cache")) {
      if (e.path().extension() == ".png") return e.path().string();
    }
    ADD_FAILURE() << "no generated image under " << (dir / "cache");
    return "";
  }
  json runs() const {
    auto r = hnclip("runs --json" + common());
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(r.out);
  }
};

TEST_F(Cli, TrainJsonHasTheDocumentedShape) {
  auto r = hnclip(small_train() + " --gamma 0.5 --json" + common());
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << "exactly one JSON object: " << r.out;
  auto j = json::parse(r.out);
  for (const char* key : {"run_id", "status", "best_epoch", "n_test", "t2i", "i2t", "train_seconds",
                          "probe_seconds", "probes", "backward_seconds", "backward_passes",
                          "loader_wait_seconds", "images_per_second", "config"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["status"], "finished");
  EXPECT_EQ(j["n_test"], 142);
  EXPECT_GE(j["best_epoch"].get<int>(), 1);
  for (const char* dir : {"t2i", "i2t"}) {
    ASSERT_EQ(j[dir].size(), 5u);
    double prev = -1;
    for (const char* k : {"R@1", "R@5", "R@10", "R@25", "R@50"}) {
      const double v = j[dir][k].get<double>();
      EXPECT_GE(v, prev) << dir << " " << k;  // recall is monotone in K
      EXPECT_LE(v, 100.0);
      prev = v;
    }
  }
  EXPECT_GT(j["images_per_second"].get<double>(), 0);
  EXPECT_EQ(j["config"]["loss_gamma"], 0.5);
  EXPECT_NE(r.err.find("epoch 2"), std::string::npos) << "progress goes to stderr";

  // The run is stored, with its evaluations, and `show`/`eval` read it back.
  auto list = runs();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["status"], "finished");
  auto show = hnclip("show " + std::to_string(j["run_id"].get<int>()) + " --json" + common());
  ASSERT_EQ(show.code, 0) << show.err;
  auto s = json::parse(show.out);
  EXPECT_EQ(s["evaluations"].size(), 3u);  // start + 2 epochs
  EXPECT_EQ(s["checkpoints"].size(), 2u);
  ASSERT_EQ(s["gbar_snapshots"].size(), 6u);  // 2 fixed batches at epochs 0, 1, 2
  EXPECT_EQ(s["gbar_snapshots"][0]["size"], 32);
  EXPECT_LE(s["gbar_snapshots"][0]["max_value"].get<double>(), 1.0);
  EXPECT_EQ(s["best"]["t2i"]["R@1"], j["t2i"]["R@1"]);
  // The starting checkpoint's score is "start" (epoch 0), apart from the best fine-tuned epoch.
  EXPECT_EQ(s["start"]["t2i"]["R@1"], s["evaluations"][0]["t2i"]["R@1"]);
  EXPECT_EQ(s["evaluations"][0]["epoch"], 0);
  EXPECT_TRUE(list[0].contains("start"));
  // On the built-in benchmark `train` starts from the committed pretrained checkpoint, and says so.
  EXPECT_EQ(j["config"]["init"], "pretrained");
  EXPECT_NE(r.err.find("--init random"), std::string::npos) << r.err;
  // Gradient probes every 5 steps (the default): 16 steps per epoch -> 3 per epoch.
  auto pr = hnclip("probes --run " + std::to_string(j["run_id"].get<int>()) + " --json" + common());
  ASSERT_EQ(pr.code, 0) << pr.err;
  auto p = json::parse(pr.out);
  ASSERT_EQ(p["probes"].size(), 6u);
  for (const char* key : {"step", "epoch", "loss_standard", "loss_boosted", "grad_norm_standard",
                          "grad_norm_boosted", "grad_ratio", "grad_cosine"}) {
    EXPECT_TRUE(p["probes"][0].contains(key)) << key;
  }
  EXPECT_EQ(p["probes"][0]["step"], 5);
  // Where the gradient goes: five Ḡ buckets, shares of each kind summing to 1.
  const auto& mass = p["probes"][0]["gradient_mass"];
  ASSERT_EQ(mass["buckets"].size(), 5u);
  for (const char* kind : {"plain", "boosted"}) {
    ASSERT_EQ(mass[kind].size(), 5u) << kind;
    double sum = 0;
    for (const auto& share : mass[kind]) sum += share.get<double>();
    EXPECT_NEAR(sum, 1.0, 1e-9) << kind;
  }
  ASSERT_EQ(p["epochs"].size(), 2u);
  for (const char* key : {"epoch", "solved_fraction", "zero_grad_fraction", "median_grad_norm_standard",
                          "median_grad_norm_boosted", "median_grad_ratio", "median_grad_cosine"}) {
    EXPECT_TRUE(p["epochs"][0].contains(key)) << key;
  }
  EXPECT_GT(p["epochs"][0]["median_grad_ratio"].get<double>(), 1.0);  // γ = 0.5 boosts the gradient
  // The text table gives the shares in percent, as train's epoch lines do (it printed "0.00").
  auto probes_text = hnclip("probes " + std::to_string(j["run_id"].get<int>()) + common());
  ASSERT_EQ(probes_text.code, 0) << probes_text.err;
  char row[64];
  std::snprintf(row, sizeof row, "    1      3 %6.1f%% %9.1f%%",
                100 * p["epochs"][0]["solved_fraction"].get<double>(),
                100 * p["epochs"][0]["zero_grad_fraction"].get<double>());
  EXPECT_NE(probes_text.out.find(row), std::string::npos) << row << "\nin\n" << probes_text.out;
  EXPECT_NE(probes_text.out.find("(of the probed batches: solved"), std::string::npos)
      << probes_text.out;
  auto csv = hnclip("probes --csv --run " + std::to_string(j["run_id"].get<int>()) + common());
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 7) << csv.out;  // header + 6
  // The id is named as the run's, however it was given (`probes 999` said "--run 999").
  expect_one_line_error(hnclip("probes --run 999" + common()), 2,
                        "hnclip: run 999: no such run in");
  expect_one_line_error(hnclip("probes 999" + common()), 2, "hnclip: run 999: no such run in");
  expect_one_line_error(hnclip("eval 999" + common()), 2, "hnclip: run 999: no such run in");
  // The run as `probes ID`, as `show ID` takes it; without one the error says both spellings.
  auto positional =
      hnclip("probes " + std::to_string(j["run_id"].get<int>()) + " --json" + common());
  ASSERT_EQ(positional.code, 0) << positional.err;
  EXPECT_EQ(json::parse(positional.out), json::parse(pr.out));
  expect_one_line_error(hnclip("probes" + common()), 2,
                        "a run id is required: hnclip probes ID (or --run ID)");
  expect_one_line_error(hnclip("probes 1 --run 1" + common()), 2, "excludes");
  expect_one_line_error(hnclip(small_train() + " --probe-every -1" + common()), 2, "--probe-every");

  auto ev = hnclip("eval --run " + std::to_string(j["run_id"].get<int>()) + " --json" + common());
  ASSERT_EQ(ev.code, 0) << ev.err;
  auto e = json::parse(ev.out);
  EXPECT_EQ(e["epoch"], j["best_epoch"]);
  EXPECT_EQ(e["t2i"], j["t2i"]);  // same checkpoint, same data: identical recall
  EXPECT_EQ(e["i2t"], j["i2t"]);
  EXPECT_FALSE(e["transfer"].get<bool>());
  EXPECT_FALSE(e.contains("t2i_consensus"));

  // Caption consensus: the fused text→image recall beside the plain one, which it leaves as it
  // was; nothing more is stored. The built-in benchmark has one caption per image, so every query's
  // own image keeps its plain score (leave-one-out).
  const std::string run_flag = " --run " + std::to_string(j["run_id"].get<int>());
  size_t rows_before = 0;
  {
    hnclip::RunStore store(db());
    rows_before = store.epoch_evals(j["run_id"].get<int64_t>()).size();
  }
  auto co = hnclip("eval" + run_flag + " --consensus-alpha 0.25 --json" + common());
  ASSERT_EQ(co.code, 0) << co.err;
  const auto c = json::parse(co.out);
  EXPECT_EQ(c["t2i"], j["t2i"]);
  EXPECT_EQ(c["i2t"], j["i2t"]);
  EXPECT_DOUBLE_EQ(c["consensus_alpha"].get<double>(), 0.25);
  EXPECT_EQ(c["t2i_consensus"].size(), c["t2i"].size());
  EXPECT_EQ(c["captions_without_siblings"], c["n_test_captions"]);
  auto table = hnclip("eval" + run_flag + " --consensus-alpha 0.25" + common());
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("caption consensus, alpha 0.25"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("leave-one-out"), std::string::npos) << table.out;
  expect_one_line_error(hnclip("eval" + run_flag + " --consensus-alpha 1.5" + common()), 2,
                        "--consensus-alpha");
  {
    hnclip::RunStore store(db());
    EXPECT_EQ(store.epoch_evals(j["run_id"].get<int64_t>()).size(), rows_before);
  }

  // Cross-domain: the shifted test set and another data seed are transfer evaluations, stored
  // per (run, epoch, benchmark, split) beside — never among — the run's own evaluations.
  const int64_t id = j["run_id"].get<int64_t>();
  size_t own_rows = 0;
  {
    hnclip::RunStore store(db());
    own_rows = store.epoch_evals(id).size();
  }
  auto sh = hnclip("eval --run " + std::to_string(id) + " --split shifted --json" + common());
  ASSERT_EQ(sh.code, 0) << sh.err;
  const auto shifted = json::parse(sh.out);
  EXPECT_TRUE(shifted["transfer"].get<bool>());
  EXPECT_EQ(shifted["split"], "shifted");
  // Only the measured split is opened: the log says so, not "137 training images (shifted)".
  EXPECT_NE(sh.err.find(" images (shifted)"), std::string::npos) << sh.err;
  EXPECT_EQ(sh.err.find("training images"), std::string::npos) << sh.err;
  EXPECT_EQ(shifted["benchmark"], "synthetic:size=small:seed=1");
  EXPECT_GE(shifted["n_test"].get<int>(), 120);
  EXPECT_NE(shifted["t2i"], j["t2i"]);
  auto other = hnclip("eval --run " + std::to_string(id) + " --data-seed 2 --json" + common());
  ASSERT_EQ(other.code, 0) << other.err;
  EXPECT_EQ(json::parse(other.out)["benchmark"], "synthetic:size=small:seed=2");
  EXPECT_EQ(json::parse(other.out)["split"], "test");
  // The text says which data as `runs` does, not by the store's key.
  EXPECT_EQ(shifted["test_set"], "synthetic small (seed 1) / shifted");
  const auto text = hnclip("eval " + std::to_string(id) + " --data-seed 2" + common());
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find(" images of synthetic small (seed 2) / test (transfer evaluation):"),
            std::string::npos)
      << text.out;
  const auto on_train = hnclip("eval " + std::to_string(id) + " --split train --json" + common());
  ASSERT_EQ(on_train.code, 0) << on_train.err;
  EXPECT_EQ(json::parse(on_train.out)["test_set"],
            "synthetic small (seed 1) / train (also its training split)");
  expect_one_line_error(hnclip("eval --run " + std::to_string(id) + " --split nosuch" + common()),
                        2, "--split nosuch: benchmark 'synthetic': unknown split 'nosuch'");
  {
    hnclip::RunStore store(db());
    EXPECT_EQ(store.epoch_evals(id).size(), own_rows);
    std::map<std::string, int> rows;
    for (const auto& t : store.transfer_evals(id)) ++rows[t.benchmark + "#" + t.split];
    EXPECT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows["synthetic:size=small:seed=1#shifted"], 10);  // 2 directions x 5 K
    EXPECT_EQ(rows["synthetic:size=small:seed=2#test"], 10);     // evaluated twice, stored once
    EXPECT_EQ(rows["synthetic:size=small:seed=1#train"], 10);
  }
  // `show` lists them (they were stored but shown nowhere outside an experiment's table), with
  // the recall `eval` printed and the run's own training split marked.
  const auto shown = hnclip("show " + std::to_string(id) + " --json" + common());
  ASSERT_EQ(shown.code, 0) << shown.err;
  const auto transfers = json::parse(shown.out)["transfer_evaluations"];
  ASSERT_EQ(transfers.size(), 3u) << transfers.dump();
  bool saw_shifted = false;
  for (const auto& t : transfers) {
    EXPECT_EQ(t["training_split"].get<bool>(), t["split"] == "train") << t.dump();
    if (t["split"] != "shifted") continue;
    saw_shifted = true;
    EXPECT_EQ(t["benchmark"], "synthetic:size=small:seed=1");
    EXPECT_EQ(t["images"], shifted["n_test"]);
    EXPECT_DOUBLE_EQ(t["t2i"]["R@1"].get<double>(), shifted["t2i"]["R@1"].get<double>());
    EXPECT_DOUBLE_EQ(t["i2t"]["R@10"].get<double>(), shifted["i2t"]["R@10"].get<double>());
  }
  EXPECT_TRUE(saw_shifted);
  const auto shown_text = hnclip("show " + std::to_string(id) + common());
  ASSERT_EQ(shown_text.code, 0) << shown_text.err;
  EXPECT_NE(shown_text.out.find("transfer evaluations (other data"), std::string::npos)
      << shown_text.out;
  EXPECT_NE(shown_text.out.find("synthetic:size=small:seed=1 / train ("), std::string::npos)
      << shown_text.out;
  EXPECT_NE(shown_text.out.find("; its training split)"), std::string::npos) << shown_text.out;
}

// `runs` lines its columns up by characters, not bytes: γ and · are two bytes in UTF-8, and an
// experiment's runs differ only at the end of their names, so the names are shown in full up to
// 48 characters and beyond that keep their start and end around "…", cut at character boundaries
// (printf's %-20.20s cut "grid · HN γ 0.5 · s …" mid-character and shifted every later column).
TEST_F(Cli, RunsTableAlignsMultiByteNamesAndKeepsThemWhole) {
  const std::string seed1 = "grid · HN γ 0.5 · s 10 fixed · seed 1";
  const std::string seed2 = "grid · HN γ 0.5 · s 10 fixed · seed 2";
  std::string longer = "γγγγγγγγγγ";  // 10 two-byte characters, then 50 one-byte ones
  longer += std::string(50, 'x');
  {
    hnclip::RunStore store(db());
    // The last, stored before names had to be one line, is shown on one.
    for (const std::string& name :
         {seed1, seed2, longer, std::string(), std::string("old\nname")}) {
      hnclip::RunRecord r;
      r.name = name;
      r.status = hnclip::RunStatus::Finished;
      r.config_json = "{}";
      r.created_at_ms = 1000;
      store.create_run(r);
    }
  }
  const auto r = hnclip("runs" + common());
  ASSERT_EQ(r.code, 0) << r.err;
  // No character cut in half: a stray byte decodes to U+FFFD.
  EXPECT_EQ(hnclip::utf8_decode(r.out).find(U'\uFFFD'), std::u32string::npos) << r.out;
  EXPECT_NE(r.out.find(seed1), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(seed2), std::string::npos) << r.out;
  // 24 characters, "…", the last 23 (seed 1 of a long experiment's name would still show).
  const std::string cut = longer.substr(0, 10 * 2 + 14) + "…" + std::string(23, 'x');
  EXPECT_NE(r.out.find(cut + " "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("old name "), std::string::npos) << r.out;
  // The status column starts at the same character in the header and in every row.
  expect_status_column_aligned(r.out, 5);
  // `show` names a run by its name when it has one, and gives no empty quotes when it has none.
  const auto named = hnclip("show 1" + common());
  ASSERT_EQ(named.code, 0) << named.err;
  EXPECT_EQ(named.out.rfind("run 1 '" + seed1 + "': finished", 0), 0u) << named.out;
  const auto unnamed = hnclip("show 4" + common());
  ASSERT_EQ(unnamed.code, 0) << unnamed.err;
  EXPECT_EQ(unnamed.out.rfind("run 4: finished", 0), 0u) << unnamed.out;
}

// `experiments` lists them in a table: a header, and columns that line up however long (and in
// however many bytes) the names are, as `runs` does.
TEST_F(Cli, ExperimentsTableAlignsMultiByteNames) {
  {
    hnclip::RunStore store(db());
    for (const std::string& name :
         {std::string("small"), std::string("γ sweep · ViT-B/16 · Ḡ frozen"),
          std::string(60, 'x')}) {
      hnclip::ExperimentRecord e;
      e.name = name;
      e.status = hnclip::kExperimentFinished;
      store.create_experiment(e, {}, {});
    }
  }
  const auto r = hnclip("experiments" + common());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("γ sweep · ViT-B/16 · Ḡ frozen"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(std::string(24, 'x') + "…" + std::string(23, 'x') + " "), std::string::npos)
      << r.out;
  expect_status_column_aligned(r.out, 3);
}

// --val-split val: the built-in benchmark's validation split is evaluated at the start and after
// every epoch and stored under its own name, beside the test split's rows (as many as without
// it); what `show`, `runs` and the best epoch report stays the test split's.
TEST_F(Cli, ValSplitIsStoredEveryEpochBesideTheTestSplit) {
  auto r = hnclip(small_train() + " --val-split val --json" + common());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = json::parse(r.out);
  EXPECT_EQ(j["config"]["val_split"], "val");
  EXPECT_EQ(j["n_test"], 142);
  const int64_t id = j["run_id"].get<int64_t>();
  std::map<std::string, std::map<int, int>> rows;  // split -> epoch -> rows
  std::map<std::string, std::map<int, double>> t2i_r1;
  {
    hnclip::RunStore store(db());
    for (const auto& e : store.epoch_evals(id)) {
      ++rows[e.split][e.epoch];
      if (e.direction == "t2i" && e.k == 1) t2i_r1[e.split][e.epoch] = e.recall;
    }
    EXPECT_FALSE(store.query_ranks(id, 2, "val", "t2i").empty());
  }
  ASSERT_EQ(rows.size(), 2u) << "test and val";
  for (const char* split : {"test", "val"}) {
    ASSERT_EQ(rows[split].size(), 3u) << split << ": epochs 0, 1, 2";
    for (const auto& [epoch, n] : rows[split]) EXPECT_EQ(n, 10) << split << " epoch " << epoch;
  }
  const auto s = json::parse(hnclip("show " + std::to_string(id) + " --json" + common()).out);
  ASSERT_EQ(s["evaluations"].size(), 3u);
  ASSERT_EQ(s["val_evaluations"].size(), 3u);
  for (int epoch = 0; epoch <= 2; ++epoch) {
    EXPECT_EQ(s["evaluations"][epoch]["t2i"]["R@1"], t2i_r1["test"][epoch]);
    EXPECT_EQ(s["val_evaluations"][epoch]["t2i"]["R@1"], t2i_r1["val"][epoch]);
  }
  EXPECT_EQ(s["best"]["t2i"]["R@1"], j["t2i"]["R@1"]);
  EXPECT_EQ(s["data"]["val_split"], "val");
  // Progress names each evaluation's split, the epoch's summary once.
  EXPECT_NE(r.err.find("epoch 2  val: t2i R@1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("epoch 2  test: t2i R@1"), std::string::npos) << r.err;
  // The benchmark lists the split: 40 families of 3-4 images, like test.
  const auto bench = json::parse(hnclip("benchmark --benchmark-size small --json" + common()).out);
  EXPECT_GE(bench["val"].get<int>(), 120);
  EXPECT_LE(bench["val"].get<int>(), 160);
}

TEST_F(Cli, BadInputGivesOneLineAndTheRightExitCode) {
  expect_one_line_error(hnclip("train --no-such-flag" + common()), 2,
                        "--no-such-flag: no such option of train (see train --help)");
  // A slip of the keyboard is answered with what was meant, not "arguments were not expected".
  expect_one_line_error(hnclip("train --gama 0.5" + common()), 2,
                        "--gama: no such option of train (did you mean --gamma?)");
  expect_one_line_error(hnclip("runs --jsn" + common()), 2, "(did you mean --json?)");
  expect_one_line_error(hnclip("runz" + common()), 2,
                        "'runz' is not a command (did you mean runs?)");
  expect_one_line_error(hnclip("experiment shw 1" + common()), 2,
                        "'shw' is not a command of experiment (did you mean show?)");
  expect_one_line_error(hnclip("train --epochs abc" + common()), 2, "--epochs");  // its own words
  // `--init random` trains from scratch: stored as no checkpoint.
  auto scratch = hnclip(small_train() + " --epochs 1 --init random --json" + common());
  ASSERT_EQ(scratch.code, 0) << scratch.err;
  EXPECT_EQ(json::parse(scratch.out)["config"]["init"], "");
  expect_one_line_error(hnclip(small_train() + " --gamma -0.5" + common()), 2, "--gamma");
  expect_one_line_error(hnclip(small_train() + " --gamma nan" + common()), 2, "--gamma");
  expect_one_line_error(hnclip(small_train() + " --gamma inf" + common()), 2, "--gamma");
  expect_one_line_error(hnclip(small_train() + " --batch 1" + common()), 2, "--batch");
  expect_one_line_error(hnclip(small_train() + " --batch 100000" + common()), 2, "--batch 100000");
  expect_one_line_error(hnclip(small_train() + " --data-fraction 0" + common()), 2, "--data-fraction");
  expect_one_line_error(hnclip(small_train() + " --data-fraction 1.5" + common()), 2, "--data-fraction");
  expect_one_line_error(hnclip(small_train() + " --gbar sometimes" + common()), 2, "--gbar");
  // A run name is one line: a tab or a line break broke the columns of `runs`.
  expect_one_line_error(hnclip(small_train() + " --name 'a\tb'" + common()), 2,
                        "--name must be one line without control characters (it has a tab)");
  expect_one_line_error(hnclip(small_train() + " --name 'a\nb'" + common()), 2,
                        "(it has a line break)");
  expect_one_line_error(hnclip(small_train() + " --val-split test" + common()), 2, "--val-split");
  // A split the benchmark lacks is named with the flag that asked for it, before a run exists.
  for (const std::string flag : {"--test-split", "--train-split", "--val-split"})
    expect_one_line_error(hnclip(small_train() + " " + flag + " nosuch" + common()), 2,
                          flag + " nosuch: benchmark 'synthetic': unknown split 'nosuch'");
  EXPECT_EQ(runs().size(), 1u);  // the --init random run only
  expect_one_line_error(hnclip("show 999" + common()), 2, "run 999");
  expect_one_line_error(hnclip("eval --run 999" + common()), 2, "999");
  expect_one_line_error(hnclip("eval 999" + common()), 2, "999");
  expect_one_line_error(hnclip("eval" + common()), 2, "hnclip eval ID (or --run ID)");
  expect_one_line_error(hnclip("train --resume 999" + common()), 2, "999");
  expect_one_line_error(hnclip(small_train() + " --db /nonexistent-folder/x.db"), 1, "/nonexistent-folder/x.db");
  hnclip::test::write_text_file(dir / "bogus.pt", "not a checkpoint");
  expect_one_line_error(hnclip(small_train() + " --init " + (dir / "bogus.pt").string() + common()), 1, "bogus.pt");
  EXPECT_EQ(hnclip("train --help").code, 0);
}

// A new run or a resume refused for its input leaves no database behind: a missing manifest (read
// after the database was opened) and `--resume 3` on a new --db each left an empty one, which
// `runs` then listed as a database with no runs.
TEST_F(Cli, ARefusedRunCreatesNoDatabase) {
  const auto missing = (dir / "missing.jsonl").string();
  expect_one_line_error(
      hnclip("train" + quick_train() + " --benchmark manifest --data " + missing + common()), 1,
      missing + ": cannot read manifest: no such file");
  EXPECT_FALSE(std::filesystem::exists(db())) << "a refused manifest created the database";
  expect_one_line_error(hnclip("train --resume 3" + common()), 2,
                        "--resume 3: no such run: there is no database at " + db());
  EXPECT_FALSE(std::filesystem::exists(db())) << "a refused resume created the database";
  // A database that cannot be created is still refused before the data is read.
  expect_one_line_error(hnclip(small_train() + " --db " + (dir / "no-folder" / "x.db").string()), 1,
                        "no-folder does not exist or is not a folder");
  const auto r = hnclip(small_train() + " --json" + common());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(db()));
}

// `train --data x.jsonl` without --benchmark manifest trained on the built-in benchmark, which
// reads no data set, and said nothing; `benchmark`, `stats`, `eval` and `sweep` did the same.
TEST_F(Cli, ADataRootTheBuiltInBenchmarkWouldNotReadIsRefused) {
  const auto manifest = (dir / "mine.jsonl").string();
  std::ofstream(manifest) << "{}\n";
  const std::string said = "--data-root " + manifest +
                           ": the built-in benchmark (--benchmark synthetic, the default) reads no "
                           "data set; for this manifest add --benchmark manifest";
  expect_one_line_error(hnclip(small_train() + " --data " + manifest + common()), 2, said);
  EXPECT_FALSE(std::filesystem::exists(db())) << "a refused run created the database";
  expect_one_line_error(hnclip("benchmark --benchmark-size small --data " + manifest + common()), 2,
                        said);
  expect_one_line_error(hnclip("stats --benchmark-size small --data " + manifest + common()), 2,
                        said);
  expect_one_line_error(hnclip("sweep --benchmark-size small --epochs 1 --batch 64 --seeds 1 "
                               "--data " +
                               manifest + common()),
                        2, said);
  EXPECT_FALSE(std::filesystem::exists(db())) << "a refused sweep created the database";
  // A folder: every kind of data set that takes one is named.
  expect_one_line_error(hnclip(small_train() + " --data " + (dir / "").string() + common()), 2,
                        "name the data set's kind with --benchmark manifest (a .jsonl or .csv "
                        "file), docci, dci, long-dci or urban1k (a folder)");
  ASSERT_EQ(hnclip(small_train() + " --json" + common()).code, 0);
  expect_one_line_error(hnclip("eval 1 --data " + manifest + common()), 2, said);
  EXPECT_TRUE(json::parse(hnclip("show 1 --json" + common()).out)["transfer_evaluations"].empty());
}

// The built-in benchmark's generator settings beside a data set on disk: `train --benchmark
// manifest --benchmark-size large --data-seed 7` trained on the manifest and recorded both, and
// `benchmark`, `stats`, `neighbors` and `sweep` took them silently too. Refused before anything
// is recorded; at their default values they are accepted, and a run recorded with them by an
// earlier version still evaluates.
TEST_F(Cli, TheBuiltInBenchmarksGeneratorSettingsBesideADataSetOnDiskAreRefused) {
  const auto manifest = hnclip::test::generated_small_manifest(dir / "cache");
  ASSERT_FALSE(manifest.file.empty());
  const std::string data = " --benchmark manifest --data " + manifest.file.string();
  const std::string train = "train" + quick_train() + " --epochs 1";
  const std::string said =
      ": --benchmark manifest reads its data set as it is; the size and --data-seed shape the "
      "built-in benchmark only (--benchmark synthetic): leave them out";
  expect_one_line_error(hnclip(train + data + " --benchmark-size large" + common()), 2,
                        "--benchmark-size large" + said);
  expect_one_line_error(hnclip(train + data + " --data-seed 7" + common()), 2,
                        "--data-seed 7" + said);
  expect_one_line_error(
      hnclip("sweep --epochs 1 --batch 64 --seeds 1 --data-seed 7" + data + common()), 2,
      "--data-seed 7" + said);
  EXPECT_FALSE(std::filesystem::exists(db())) << "a refused run or sweep created the database";
  expect_one_line_error(hnclip("benchmark --benchmark-size small" + data + common()), 2,
                        "--benchmark-size small" + said);
  expect_one_line_error(hnclip("stats --data-seed 2" + data + common()), 2, "--data-seed 2" + said);
  expect_one_line_error(hnclip("neighbors --index 0 --data-seed 2" + data + common()), 2,
                        "--data-seed 2" + said);
  // At their defaults they change nothing.
  const auto r =
      hnclip(train + " --data-seed 1 --benchmark-size default" + data + " --json" + common());
  ASSERT_EQ(r.code, 0) << r.err;
  // As an earlier version recorded such a run: it still evaluates on its manifest.
  sql(db(),
      "UPDATE runs SET config_json = json_set(config_json, '$.benchmark_size', 'large', "
      "'$.data_seed', 7) WHERE id = 1");
  const auto evaluated = hnclip("eval 1 --json" + common());
  ASSERT_EQ(evaluated.code, 0) << evaluated.err;
  EXPECT_EQ(json::parse(evaluated.out)["benchmark"],
            "manifest:" + std::filesystem::weakly_canonical(manifest.file).string());
}

// Earlier versions recorded `--gamma 0 --gbar frozen` as frozen (now refused); such a run trained
// as plain InfoNCE, and `runs` listed it as a frozen-Ḡ control it is not.
TEST_F(Cli, APlainInfoNceRunStoredAsFrozenIsListedRecomputed) {
  ASSERT_EQ(hnclip(small_train() + " --epochs 1 --json" + common()).code, 0);
  sql(db(), "UPDATE runs SET config_json = json_set(config_json, '$.loss_gbar', 'frozen')");
  const auto listed = hnclip("runs --json" + common());
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_EQ(json::parse(listed.out)[0]["gbar"], "recomputed");
  EXPECT_NE(hnclip("runs" + common()).out.find(" 0.00 recomputed "), std::string::npos);
  // With margins the stored mode is listed.
  sql(db(), "UPDATE runs SET config_json = json_set(config_json, '$.loss_gamma', 0.5)");
  EXPECT_EQ(json::parse(hnclip("runs --json" + common()).out)[0]["gbar"], "frozen");
}

// A flag the rest of the command line makes inert was stored in the run's config and never read:
// `--peft-rank 4` without --peft, `--finelip-margin` with another framework. Refused, naming the
// flag and what it needs, before anything is recorded.
TEST_F(Cli, AFlagThatWouldHaveNoEffectIsRefused) {
  const std::pair<const char*, const char*> cases[] = {
      {" --peft-rank 4", "--peft-rank has no effect without --peft lora or dora"},
      {" --alpha 8", "--alpha has no effect without --peft lora or dora"},
      {" --finelip-hardest", "--finelip-hardest has no effect without --framework finelip"},
      {" --framework longclip --finelip-margin 0.3",
       "--finelip-margin has no effect without --framework finelip"},
      {" --framework debias --longclip-pca 8",
       "--longclip-pca has no effect without --framework longclip"},
      {" --debias-keep 0.3", "--debias-keep has no effect without --framework debias"},
      {" --goal-crop-weight 0.3", "--goal-crop-weight has no effect without --framework goal"},
      {" --structxlip-chunk-words 2",
       "--structxlip-chunk-words has no effect without --framework structxlip"},
      {" --framework structxlip --structxlip-local-weight 0 --goal-segments x.json",
       "--goal-segments has no effect without --framework goal, or structxlip with its local "
       "term"},
      // Plain InfoNCE has no Ḡ; the built-in benchmark starts from the committed checkpoint,
      // whose tokenizer has its own context and vocabulary.
      {" --gamma 0 --gbar frozen", "--gbar has no effect without --gamma > 0"},
      {" --context-length 40", "--context-length has no effect with an --init checkpoint"},
      {" --init pretrained --vocab v.txt.gz",
       "--vocab has no effect without a CLIP model file as --init"},
      {" --init random --vocab v.txt.gz",
       "--vocab has no effect without a CLIP model file as --init"},
  };
  for (const auto& [flags, said] : cases) {
    SCOPED_TRACE(flags);
    expect_one_line_error(hnclip(small_train() + flags + common()), 2, std::string(said));
  }
  // pretrain takes the same flags.
  expect_one_line_error(
      hnclip("pretrain --benchmark-size small --epochs 1 --finelip-lr 1e-3 --out " +
             (dir / "p.pt").string() + common()),
      2, "--finelip-lr has no effect without --framework finelip");
  const auto r = hnclip(small_train() + " --peft-rank 4" + common());
  EXPECT_NE(r.err.find("lora or dora: leave it out, or add what it needs (nothing was recorded)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(db())) << "a refused run created the database";
  // The same flags where they are used: accepted (Long-CLIP's smoothing also serves DeBias-CLIP).
  const auto used = hnclip(small_train() +
                           " --epochs 1 --framework debias --longclip-smoothing "
                           "0.05 --debias-keep 0.3 --gbar recomputed --json" +
                           common());
  EXPECT_EQ(used.code, 0) << used.err;
  const auto scratch = hnclip(small_train() +
                              " --epochs 1 --init random --context-length 40 --gamma 0.5 --gbar "
                              "frozen --json" +
                              common());
  ASSERT_EQ(scratch.code, 0) << scratch.err;
  EXPECT_NE(scratch.err.find("context 40"), std::string::npos) << scratch.err;

  // A sweep refuses a flag that none of its configurations uses, and keeps one that some use.
  const std::string sweep = "sweep --benchmark-size small --epochs 1 --seeds 1 --dry-run";
  expect_one_line_error(hnclip(sweep + " --gbar frozen" + common()), 2,
                        "--gbar has no effect without --gamma > 0 (plain InfoNCE uses no Ḡ) in "
                        "any of the experiment's 1 configurations");
  EXPECT_EQ(hnclip(sweep + " --gbar recomputed --peft-rank 8" + common()).code, 0)
      << "a flag given at its default value stores nothing and is accepted";
  expect_one_line_error(hnclip(sweep + " --peft-rank 4 --set loss_gamma=0,0.5" + common()), 2,
                        "--peft-rank has no effect without --peft lora or dora in any of the "
                        "experiment's");
  const auto some_cell = hnclip(sweep + " --gbar frozen --set loss_gamma=0,0.5" + common());
  EXPECT_EQ(some_cell.code, 0) << some_cell.err;
  const auto some_start =
      hnclip(sweep + " --context-length 40 --set init=random,pretrained" + common());
  EXPECT_EQ(some_start.code, 0) << some_start.err;

  // The same keys in an experiment file, or varied by --set, were stored in every run unread.
  const auto file = dir / "inert.json";
  hnclip::test::write_text_file(file, "{\"base\": {\"peft_rank\": 4, \"peft_alpha\": 16}}");
  expect_one_line_error(hnclip(sweep + " --config " + file.string() + common()), 2,
                        file.string() +
                            ": config key 'peft_rank' (--peft-rank) has no effect without --peft "
                            "lora or dora in any of the experiment's 1 configurations");
  hnclip::test::write_text_file(
      file, "{\"axes\": [{\"key\": \"finelip_margin\", \"values\": [0.1, 0.3]}]}");
  expect_one_line_error(hnclip(sweep + " --config " + file.string() + common()), 2,
                        "config key 'finelip_margin' (--finelip-margin) has no effect without "
                        "--framework finelip");
  expect_one_line_error(hnclip(sweep + " --set debias_keep_ratio=0.3,0.6" + common()), 2,
                        "--set: config key 'debias_keep_ratio' (--debias-keep) has no effect");
  // Used by some cell, or given at the default (peft_alpha above): accepted.
  hnclip::test::write_text_file(
      file,
      "{\"base\": {\"peft_rank\": 4, \"peft_alpha\": 16}, \"axes\": [{\"key\": "
      "\"peft\", \"values\": [\"none\", \"lora\"]}]}");
  const auto used_by_one = hnclip(sweep + " --config " + file.string() + common());
  EXPECT_EQ(used_by_one.code, 0) << used_by_one.err;
}

// A database whose runs were all deleted (the Runs tab's Delete…) listed a header over nothing,
// which reads as a listing that failed; and a batch larger than the split named --data-fraction
// when none was given ("(100 images after --data-fraction 1)").
TEST_F(Cli, EmptyListingsAndTheWholeSplitAreSaidPlainly) {
  hnclip::RunStore(db()).create_run(hnclip::RunRecord{});
  hnclip::RunStore(db()).delete_run(1);
  const auto runs_listed = hnclip("runs" + common());
  EXPECT_EQ(runs_listed.code, 0) << runs_listed.err;
  EXPECT_EQ(runs_listed.out, "no runs in " + db() + " (`hnclip train` or `sweep` adds them)\n");
  EXPECT_EQ(hnclip("runs --json" + common()).out, "[]\n");
  const auto experiments = hnclip("experiments" + common());
  EXPECT_EQ(experiments.code, 0) << experiments.err;
  EXPECT_EQ(experiments.out, "no experiments in " + db() + " (`hnclip sweep` trains one)\n");

  expect_one_line_error(hnclip(small_train() + " --batch 100000" + common()), 2,
                        "--batch 100000 is larger than the training split (512 images)");
  expect_one_line_error(hnclip(small_train() + " --batch 300 --data-fraction 0.5" + common()), 2,
                        "--batch 300 is larger than the training split (256 images after "
                        "--data-fraction 0.5)");
}

TEST_F(Cli, FailuresLoseNothingAlreadyStored) {
  auto first = hnclip(small_train() + " --json" + common());
  ASSERT_EQ(first.code, 0) << first.err;
  const auto before = runs();
  const auto show_before = hnclip("show 1 --json" + common()).out;
  const auto ckpt = json::parse(show_before)["checkpoints"][0]["path"].get<std::string>();

  expect_one_line_error(hnclip(small_train() + " --gamma -1" + common()), 2, "--gamma");
  expect_one_line_error(hnclip("train --resume 1" + common()), 2, "finished");
  // A checkpoint that does not fit the asked-for model: the differing sizes are named.
  expect_one_line_error(hnclip(small_train() + " --model ViT-B/32 --init " + ckpt + common()), 1,
                        "does not fit --model ViT-B/32");
  expect_one_line_error(hnclip(small_train() + " --data-fraction 2" + common()), 2, "--data-fraction");
  // A device that is not there (no CUDA here; on a GPU machine, no 100th GPU) fails before any
  // run is recorded.
  expect_one_line_error(hnclip(small_train() + " --device cuda:99" + common()), 1, "--device cuda:99");
  // A device word that is no device: the flag named once ("--device: --device must be ...").
  expect_one_line_error(hnclip(small_train() + " --device cpu:1" + common()), 2,
                        "hnclip: --device: must be auto, cpu or cuda[:N] (got 'cpu:1')");
  // Limits the trainer's constructor checks are made before the run is recorded too.
  expect_one_line_error(hnclip(small_train() + " --batch 100000" + common()), 2, "--batch 100000");
  expect_one_line_error(hnclip(small_train() + " --init random --context-length 100000000" + common()),
                        2, "--context-length");
  expect_one_line_error(hnclip(small_train() + " --peft lora --peft-rank 100000" + common()), 2,
                        "--peft-rank must be in [1, 1024] (got 100000)");

  // Weights with a NaN are refused, naming the file and the tensor, and nothing is printed as a
  // feature. (An exported file of this word-tokenizer model needs a BPE vocabulary for its
  // captions, so it is encoded by an image; core tests cover train --init.)
  const std::string exported = (dir / "nan.safetensors").string();
  ASSERT_EQ(hnclip("export --run 1 --format safetensors " + exported + common()).code, 0);
  ASSERT_EQ(hnclip("encode --checkpoint " + exported + " --image " + any_image() + " --json").code, 0);
  {
    std::fstream f(exported, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-4, std::ios::end);  // the last float of the last tensor
    const unsigned char nan[4] = {0x00, 0x00, 0xC0, 0x7F};
    f.write(reinterpret_cast<const char*>(nan), 4);
  }
  expect_one_line_error(
      hnclip("encode --checkpoint " + exported + " --image " + any_image() + " --json"), 1,
      "holds 1 NaN and 0 infinite value(s)");

  EXPECT_EQ(runs(), before);
  EXPECT_EQ(hnclip("show 1 --json" + common()).out, show_before);
  EXPECT_TRUE(fs::exists(ckpt));
}

// Starts hnclip in the background; returns its pid.
pid_t spawn(const std::string& args, const std::string& log) {
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    const std::string cmd = std::string("exec ") + HNCLIP_CLI_PATH + " " + args + " >" + log + ".out 2>" + log + ".err";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// Polls `show ID --json` until `pred` holds or ~120 s pass.
template <typename Pred>
bool wait_for(const Cli& cli, Pred pred) {
  for (int i = 0; i < 1200; ++i) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

TEST_F(Cli, CtrlCStopsCleanlyAndKeepsCheckpointAndMetrics) {
  const auto log = (dir / "train").string();
  pid_t pid = spawn("train --benchmark-size small --epochs 30 --batch 32 --threads 1 --json" + common(), log);
  ASSERT_TRUE(wait_for(*this, [&] {
    auto r = hnclip("show 1 --json" + common());
    return r.code == 0 && !json::parse(r.out)["checkpoints"].empty();
  })) << hnclip::test::read_text_file(log + ".err");
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  auto s = json::parse(hnclip("show 1 --json" + common()).out);
  EXPECT_EQ(s["status"], "stopped");
  EXPECT_NE(s["message"].get<std::string>().find("step"), std::string::npos);
  ASSERT_FALSE(s["checkpoints"].empty());
  EXPECT_TRUE(fs::exists(s["checkpoints"][0]["path"].get<std::string>()));
  EXPECT_GT(s["steps"].get<int>(), 0);
  auto out = json::parse(hnclip::test::read_text_file(log + ".out"));
  EXPECT_EQ(out["status"], "stopped");
}

// Trained on a server, browsed on a desktop: the database moved together with its checkpoints
// folder. The store records absolute paths, so every eval, export and resume of every run said
// "checkpoint /old/place/… is missing"; the database's own folder is looked in now.
TEST_F(Cli, ADatabaseMovedWithItsCheckpointsFolderFindsItsCheckpoints) {
  ASSERT_EQ(hnclip(small_train() + common()).code, 0);
  sql(db(), "DELETE FROM checkpoints WHERE epoch = 2; UPDATE runs SET status = 'stopped'");
  fs::create_directories(dir / "desktop");
  const std::string moved = (dir / "desktop" / "runs.db").string();
  fs::rename(db(), moved);
  fs::rename(db() + ".checkpoints", moved + ".checkpoints");
  const std::string at = " --db " + moved + " --cache-dir " + (dir / "cache").string();

  const auto shown = hnclip("show 1 --json" + at);
  ASSERT_EQ(shown.code, 0) << shown.err;
  EXPECT_EQ(json::parse(shown.out)["checkpoints"][0]["path"],
            (fs::path(moved + ".checkpoints") / "run-1" / "epoch-1.pt").string());
  const auto evaluated = hnclip("eval 1 --epoch 1 --json" + at);
  EXPECT_EQ(evaluated.code, 0) << evaluated.err;
  const auto exported = hnclip("export 1 " + (dir / "e.pt").string() + " --epoch 1" + at);
  EXPECT_EQ(exported.code, 0) << exported.err;
  // Resumed from the moved epoch-1 file: training goes on in the database's own folder.
  const auto resumed = hnclip("train --resume 1 --json" + at);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_TRUE(fs::exists(fs::path(moved + ".checkpoints") / "run-1" / "epoch-2.pt"));
  EXPECT_FALSE(fs::exists(db() + ".checkpoints"));
}

// Epoch 0 is evaluated ("start") but never saved: `eval --epoch 0` said "run 1 has no checkpoint
// for it", so the start's transfer — the zero-shot row of a transfer table — could not be
// measured. It is the run's starting --init file: its own test split gives the stored start row
// again, exactly. Random weights (their word tokenizer built from the training captions) are
// refused, and the stored start row is left as it was.
TEST_F(Cli, EpochZeroIsTheRunsStartingModel) {
  ASSERT_EQ(hnclip(small_train() + " --epochs 1 --init random" + common()).code, 0);
  const auto before = json::parse(hnclip("show 1 --json" + common()).out)["evaluations"][0];
  const auto refused = hnclip("eval 1 --epoch 0" + common());
  expect_one_line_error(refused, 2,
                        "--epoch 0: run 1 started from random weights (seed 0) with a word "
                        "tokenizer built from its training captions, which eval does not rebuild");
  EXPECT_EQ(refused.err.find("starting model"), std::string::npos)
      << "a note on what would be evaluated before the refusal: " << refused.err;
  EXPECT_EQ(json::parse(hnclip("show 1 --json" + common()).out)["evaluations"][0], before);
  expect_one_line_error(hnclip("export 1 " + (dir / "start.pt").string() + " --epoch 0" + common()),
                        2, "which was random weights: there is nothing to export");
  {
    std::filesystem::remove(db());
    std::filesystem::remove_all(db() + ".checkpoints");
    ASSERT_EQ(hnclip(small_train() + " --epochs 1" + common()).code, 0);
    const auto shown = json::parse(hnclip("show 1 --json" + common()).out);
    ASSERT_EQ(shown["evaluations"][0]["epoch"], 0);
    const auto own = hnclip("eval 1 --epoch 0 --json" + common());
    ASSERT_EQ(own.code, 0) << own.err;
    EXPECT_NE(own.err.find("--epoch 0: run 1's starting model, "), std::string::npos) << own.err;
    const auto e = json::parse(own.out);
    EXPECT_EQ(e["epoch"], 0);
    EXPECT_EQ(e["t2i"]["R@1"], shown["evaluations"][0]["t2i"]["R@1"]);
    EXPECT_EQ(e["i2t"]["R@5"], shown["evaluations"][0]["i2t"]["R@5"]);
    const auto moved = hnclip("eval 1 --epoch 0 --split shifted --json" + common());
    ASSERT_EQ(moved.code, 0) << moved.err;
    EXPECT_TRUE(json::parse(moved.out)["transfer"].get<bool>());
    const auto kept = json::parse(hnclip("show 1 --json" + common()).out)["transfer_evaluations"];
    ASSERT_EQ(kept.size(), 1u);
    EXPECT_EQ(kept[0]["epoch"], 0);
    expect_one_line_error(
        hnclip("export 1 " + (dir / "start.pt").string() + " --epoch 0" + common()), 2,
        "which is its --init file: export that (--checkpoint ");
  }
}

TEST_F(Cli, KilledRunIsInterruptedAndResumesIntoTheSameRun) {
  const auto log = (dir / "train").string();
  // 12 epochs: long enough that the kill lands mid-run however fast the machine is.
  pid_t pid = spawn(
      "train --benchmark-size small --epochs 12 --batch 32 --threads 1 --val-split val" + common(),
      log);
  ASSERT_TRUE(wait_for(*this, [&] {
    auto r = hnclip("show 1 --json" + common());
    return r.code == 0 && json::parse(r.out)["checkpoints"].size() >= 1;
  })) << hnclip::test::read_text_file(log + ".err");
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  auto s = json::parse(hnclip("show 1 --json" + common()).out);
  EXPECT_EQ(s["status"], "interrupted");

  auto resumed = hnclip("train --resume 1 --json" + common());
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  auto j = json::parse(resumed.out);
  EXPECT_EQ(j["run_id"], 1);
  EXPECT_EQ(j["status"], "finished");
  auto after = json::parse(hnclip("show 1 --json" + common()).out);
  EXPECT_EQ(after["status"], "finished");
  EXPECT_EQ(after["checkpoints"].size(), 12u);
  EXPECT_EQ(after["evaluations"].size(), 13u);  // start + 12 epochs, none twice
  EXPECT_EQ(after["val_evaluations"].size(), 13u);  // the resumed run kept evaluating val
  {
    hnclip::RunStore store(db());
    EXPECT_EQ(store.epoch_evals(1).size(), 2u * 13u * 10u);  // test and val, epochs 0..12, once
  }
  EXPECT_EQ(after["steps"], 12 * (512 / 32));   // every step once: the curves continue
  EXPECT_EQ(runs().size(), 1u);
  expect_one_line_error(hnclip("train --resume 1 --gamma 0.3" + common()), 2, "--gamma");
}

// Runs measured on different data are listed with the data they were measured on (benchmark,
// size, data seed, split): their recall columns sit side by side but do not compare.
TEST_F(Cli, RunsAndShowSayWhichTestSetEachRunWasMeasuredOn) {
  {
    hnclip::RunStore store(db());
    for (const char* config : {"{}", R"({"benchmark_size": "small", "test_split": "val"})"}) {
      hnclip::RunRecord r;
      r.status = hnclip::RunStatus::Finished;
      r.config_json = config;
      store.create_run(r);
    }
  }
  const std::string default_set = "synthetic default (seed 1) / test";
  const std::string small_val = "synthetic small (seed 1) / val";
  const auto table = hnclip("runs" + common());
  ASSERT_EQ(table.code, 0) << table.err;
  std::istringstream lines(table.out);
  std::string header, newest, oldest;
  std::getline(lines, header);
  std::getline(lines, newest);
  std::getline(lines, oldest);
  const size_t column = header.find("test set");
  ASSERT_NE(column, std::string::npos) << table.out;
  // Newest first; the names are empty, so the column starts at the same byte in every line.
  EXPECT_EQ(newest.find(small_val), column) << table.out;
  EXPECT_EQ(oldest.find(default_set), column) << table.out;
  const auto listed = runs();
  EXPECT_EQ(listed[0]["test_set"], small_val);
  EXPECT_EQ(listed[1]["test_set"], default_set);
  const auto shown = hnclip("show 2" + common());
  ASSERT_EQ(shown.code, 0) << shown.err;
  EXPECT_NE(shown.out.find("\n  tested on " + small_val + "\n"), std::string::npos) << shown.out;

  // A data set deep in the file system: the column keeps the split, which a cut at the end hid.
  const std::string root = "/data/" + std::string(60, 'd') + "/docci";
  {
    hnclip::RunStore store(db());
    hnclip::RunRecord r;
    r.status = hnclip::RunStatus::Finished;
    r.config_json =
        R"({"benchmark": "docci", "test_split": "qual_dev", "benchmark_root": ")" + root + R"("})";
    store.create_run(r);
  }
  const auto deep = hnclip("runs" + common());
  ASSERT_EQ(deep.code, 0) << deep.err;
  EXPECT_NE(deep.out.find("…" + std::string(14, 'd') + "/docci / qual_dev "), std::string::npos)
      << deep.out;
  EXPECT_EQ(runs()[0]["test_set"], "docci " + root + " / qual_dev");  // JSON: whole
}

// Testing on the training split is allowed (a manifest with one "all" split) but never silent:
// the run says so when it starts, and its test set says so wherever its recall is listed.
TEST_F(Cli, TestingOnTheTrainingSplitIsSaid) {
  auto r = hnclip(small_train() + " --epochs 1 --test-split train --json" + common());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("--test-split train is also the training split: the recall measures how "
                       "well the run fits images it trained on"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(runs()[0]["test_set"], "synthetic small (seed 1) / train (also its training split)");
  auto held_out = hnclip(small_train() + " --epochs 1 --json" + common());
  ASSERT_EQ(held_out.code, 0) << held_out.err;
  EXPECT_EQ(held_out.err.find("is also the training split"), std::string::npos) << held_out.err;
}

// The summary of `train` puts the starting checkpoint's R@1 beside the best fine-tuned epoch's,
// and says in which directions the start is above it: a fine-tuning that lost recall read as a
// plain "best epoch 1: R@1 83.80" (the start's 87.32 was only in the progress lines above).
TEST_F(Cli, TheSummaryPutsTheStartBesideTheBestEpoch) {
  // Fine-tuning at the default lr with γ 0.5 for two epochs lost recall on this benchmark here.
  auto r = hnclip("train --benchmark-size small --epochs 2 --batch 32 --gamma 0.5 --threads 1" +
                  common());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto s = json::parse(hnclip("show 1 --json" + common()).out);
  const double start_t2i = s["start"]["t2i"]["R@1"], start_i2t = s["start"]["i2t"]["R@1"];
  const double best_t2i = s["best"]["t2i"]["R@1"], best_i2t = s["best"]["i2t"]["R@1"];
  std::ostringstream line;
  line << "  start (epoch 0): t2i R@1 " << start_t2i << ", i2t R@1 " << start_i2t;
  if (start_t2i > best_t2i && start_i2t > best_i2t)
    line << " (above the best epoch in both directions)";
  else if (start_t2i > best_t2i)
    line << " (t2i above the best epoch)";
  else if (start_i2t > best_i2t)
    line << " (i2t above the best epoch)";
  line << "\n";
  EXPECT_NE(r.out.find(line.str()), std::string::npos) << line.str() << "in\n" << r.out;

  auto j = json::parse(hnclip(small_train() + " --epochs 1 --json" + common()).out);
  EXPECT_EQ(j["start"], json::parse(hnclip("show 2 --json" + common()).out)["start"]);
  EXPECT_EQ(j["start"]["t2i"].size(), 5u);  // R@1 … R@50, as `show` has them
}

// A split of one image has no caption pairs: `benchmark` printed the rows before it, then failed
// with "bag_of_words_stats: need at least two captions, got 1". Every split is printed, the
// similarities of that one as "–" (JSON: null).
TEST_F(Cli, BenchmarkPrintsASplitOfOneCaption) {
  const auto manifest = hnclip::test::generated_small_manifest(dir / "cache");
  ASSERT_FALSE(manifest.file.empty());
  std::vector<json> lines;
  bool one_train = false;
  for (const auto& j : manifest.samples) {
    if (j["split"] == "train" && one_train) continue;
    one_train = one_train || j["split"] == "train";
    lines.push_back(j);
  }
  manifest.write(lines);
  const std::string args = "benchmark --benchmark manifest --data " + manifest.file.string();
  const auto text = hnclip(args + common());
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("\ntrain             1         1 "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("              –             –               –\n"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("\ntest            142       142 "), std::string::npos) << text.out;
  const auto j = json::parse(hnclip(args + " --json" + common()).out);
  EXPECT_TRUE(j["splits"]["train"]["mean_pairwise"].is_null());
  EXPECT_EQ(j["splits"]["train"]["captions"], 1);
  EXPECT_TRUE(j["splits"]["test"]["mean_pairwise"].is_number());
}

// A manifest that lists training images under its test split too was accepted without a word,
// and the run's recall on those images was reported as held out. `benchmark` and `train` say it.
TEST_F(Cli, TestImagesThatAreAlsoTrainingImagesAreNamed) {
  const auto manifest = hnclip::test::generated_small_manifest(dir / "cache");
  ASSERT_FALSE(manifest.file.empty());
  std::vector<json> lines = manifest.samples;
  std::string first_train;
  int copied = 0;
  for (const auto& j : manifest.samples) {
    if (j["split"] != "train" || copied == 3) continue;
    auto again = j;
    again["split"] = "test";
    // The same file named another way: still the same image.
    if (copied == 1) again["image"] = "./" + j["image"].get<std::string>();
    if (copied == 0) first_train = j["image"].get<std::string>();
    lines.push_back(again);
    ++copied;
  }
  // Test images in the validation split (137 of its own): the best epoch would be chosen partly
  // on the test split.
  int validation = 0;
  for (const auto& j : manifest.samples) {
    if (j["split"] != "test" || validation == 3) continue;
    auto again = j;
    again["split"] = "val";
    lines.push_back(again);
    ++validation;
  }
  manifest.write(lines);
  const std::string data = " --benchmark manifest --data " + manifest.file.string();
  const auto listed = hnclip("benchmark" + data + common());
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_NE(listed.out.find("splits train and test share 3 image files (e.g. "),
            std::string::npos)
      << listed.out;
  const auto j = json::parse(hnclip("benchmark --json" + data + common()).out);
  ASSERT_EQ(j["shared_images"].size(), 2u) << j.dump();
  EXPECT_EQ(j["shared_images"][0]["images"], 3);
  EXPECT_EQ(j["shared_images"][0]["splits"], json({"train", "test"}));
  EXPECT_EQ(j["shared_images"][1]["splits"], json({"val", "test"}));

  const auto trained = hnclip("train" + quick_train() + " --val-split val" + data + common());
  ASSERT_EQ(trained.code, 0) << trained.err;
  EXPECT_NE(trained.err.find("--test-split test: 3 of its 145 images are also training images "
                             "(split train, the same files, e.g. "),
            std::string::npos)
      << trained.err;
  EXPECT_NE(trained.err.find(first_train), std::string::npos) << trained.err;
  EXPECT_NE(trained.err.find("--val-split val: 3 of its 140 images are also test images (split "
                             "test, e.g. "),
            std::string::npos)
      << trained.err;
  EXPECT_EQ(trained.err.find("--val-split val: 3 of its 140 images are also training"),
            std::string::npos)
      << trained.err;
  // Kept with the run: its test set says so wherever it is shown, long after the run started,
  // and is not the test set of a run whose test split is held out.
  const auto shown = json::parse(hnclip("show 1 --json" + common()).out);
  EXPECT_EQ(shown["data"]["shared_images"]["test"]["train"], 3) << shown.dump();
  EXPECT_EQ(shown["data"]["shared_images"]["val"]["test"], 3) << shown.dump();
  EXPECT_FALSE(shown["data"]["shared_images"]["val"].contains("train")) << shown.dump();
  const std::string marked = " / test (3 of 145 images trained on)";
  EXPECT_NE(shown["test_set"].get<std::string>().find(marked), std::string::npos) << shown.dump();
  const auto listed_runs = hnclip("runs" + common());
  // The list cuts a long test set (the test's folder is long) in its middle: the end still says it.
  EXPECT_NE(listed_runs.out.find(" (3 of 145 images trained on)"), std::string::npos)
      << listed_runs.out;
  const auto evaluated = hnclip("eval 1 --json" + common());
  ASSERT_EQ(evaluated.code, 0) << evaluated.err;
  EXPECT_NE(json::parse(evaluated.out)["test_set"].get<std::string>().find(marked),
            std::string::npos)
      << evaluated.out;

  // The built-in benchmark's splits share no file: nothing is said.
  const auto clean = hnclip("benchmark --benchmark-size small" + common());
  ASSERT_EQ(clean.code, 0) << clean.err;
  EXPECT_EQ(clean.out.find(" share "), std::string::npos) << clean.out;
}

// A transfer target that lists the run's training images (another manifest naming the same
// files) was evaluated as transfer without a word; `eval` counts them.
TEST_F(Cli, ATransferTargetHoldingTheRunsTrainingImagesIsCounted) {
  const auto manifest = hnclip::test::generated_small_manifest(dir / "cache");
  ASSERT_FALSE(manifest.file.empty());
  const auto trained = hnclip("train" + quick_train() + " --epochs 1 --benchmark manifest --data " +
                              manifest.file.string() + " --json" + common());
  ASSERT_EQ(trained.code, 0) << trained.err;
  const auto other = hnclip::test::generated_small_manifest(dir / "cache", "other.jsonl");
  ASSERT_FALSE(other.file.empty());
  std::vector<json> lines;
  int train = 0, test = 0;
  for (auto j : other.samples) {
    if (j["split"] == "train" && train < 5) {
      ++train;
    } else if (j["split"] == "test" && test < 5) {
      ++test;
    } else {
      continue;
    }
    j["split"] = "test";
    lines.push_back(j);
  }
  other.write(lines);
  const auto mixed = hnclip("eval 1 --data " + other.file.string() + " --json" + common());
  ASSERT_EQ(mixed.code, 0) << mixed.err;
  EXPECT_TRUE(json::parse(mixed.out)["transfer"].get<bool>());
  EXPECT_EQ(json::parse(mixed.out)["training_images"], 5);
  EXPECT_NE(mixed.err.find("5 of the 10 evaluated images are training images of run 1 (split "
                           "train, the same files): their recall is not transfer"),
            std::string::npos)
      << mixed.err;
  const auto held_out = hnclip("eval 1 --split val --json" + common());
  ASSERT_EQ(held_out.code, 0) << held_out.err;
  EXPECT_EQ(json::parse(held_out.out)["training_images"], 0);
  EXPECT_EQ(held_out.err.find("training images of run"), std::string::npos) << held_out.err;
  // The run's own test split is no transfer: no count.
  EXPECT_TRUE(json::parse(hnclip("eval 1 --json" + common()).out)["training_images"].is_null());

  // Kept with the transfer evaluation: `show` says it long after the eval (it said nothing).
  const auto shown = json::parse(hnclip("show 1 --json" + common()).out);
  std::map<std::string, json> counted;
  for (const auto& t : shown["transfer_evaluations"])
    counted[t["split"].get<std::string>() + "@" + t["benchmark"].get<std::string>()] =
        t["training_images"];
  ASSERT_EQ(counted.size(), 2u) << shown.dump();
  for (const auto& [what, count] : counted) {
    const bool other_data = what.find("other.jsonl") != std::string::npos;
    EXPECT_EQ(count, other_data ? 5 : 0) << what;
  }
  const auto listed = hnclip("show 1" + common());
  EXPECT_NE(listed.out.find("(10 images, 10 captions; 5 of them trained on)"), std::string::npos)
      << listed.out;
  EXPECT_EQ(listed.out.find("; 0 of them"), std::string::npos) << listed.out;
}

// A transfer target whose images lie outside its folder was refused "unless
// --allow-outside-root", a flag `eval` did not have: such data could not be evaluated at all. The
// flag is the target's own; a run's permission for its own data does not carry to other data.
TEST_F(Cli, ATransferTargetOutsideItsFolderTakesTheImageCheckFlags) {
  const auto manifest = hnclip::test::generated_small_manifest(dir / "cache");
  ASSERT_FALSE(manifest.file.empty());
  const auto elsewhere = [&](const std::string& name, int per_split) {
    fs::create_directories(dir / "elsewhere");
    const fs::path file = dir / "elsewhere" / name;
    std::ofstream out(file);
    std::map<std::string, int> taken;
    for (auto j : manifest.samples) {
      const std::string split = j["split"];
      if ((split != "train" && split != "test") || taken[split]++ >= per_split) continue;
      j["image"] = (manifest.file.parent_path() / j["image"].get<std::string>()).string();
      out << j.dump() << "\n";
    }
    return file.string();
  };
  const std::string target = elsewhere("target.jsonl", 10);
  ASSERT_EQ(hnclip(small_train() + " --epochs 1 --json" + common()).code, 0);
  const auto refused =
      hnclip("eval 1 --benchmark manifest --data " + target + " --json" + common());
  EXPECT_NE(refused.code, 0);
  EXPECT_NE(refused.err.find("is outside the data root"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--allow-outside-root"), std::string::npos) << refused.err;
  const auto shown = [&](int run) {
    return json::parse(hnclip("show " + std::to_string(run) + " --json" + common()).out);
  };
  EXPECT_TRUE(shown(1)["transfer_evaluations"].empty());
  const auto allowed = hnclip("eval 1 --benchmark manifest --data " + target +
                              " --allow-outside-root --json" + common());
  ASSERT_EQ(allowed.code, 0) << allowed.err;
  EXPECT_EQ(json::parse(allowed.out)["n_test"], 10);
  EXPECT_EQ(shown(1)["transfer_evaluations"].size(), 1u);
  // Its limit is the target's too.
  const auto small = hnclip("eval 1 --benchmark manifest --data " + target +
                            " --allow-outside-root --max-image-pixels 100 --json" + common());
  EXPECT_NE(small.code, 0);
  EXPECT_NE(small.err.find("--max-image-pixels"), std::string::npos) << small.err;

  // A run allowed outside its own data's folder: its own data still opens without the flag,
  // another data set does not inherit it.
  const std::string own = elsewhere("own.jsonl", 40);
  ASSERT_EQ(hnclip("train" + quick_train() + " --epochs 1 --benchmark manifest --data " + own +
                   " --allow-outside-root --json" + common())
                .code,
            0);
  const auto own_split = hnclip("eval 2 --json" + common());
  EXPECT_EQ(own_split.code, 0) << own_split.err;
  // Its own data named again by the path it was given: the run's permission still holds.
  EXPECT_EQ(hnclip("eval 2 --data " + own + " --json" + common()).code, 0);
  // The built-in benchmark's flags for a manifest target evaluated the manifest as if unused.
  expect_one_line_error(hnclip("eval 2 --data-seed 2" + common()), 2,
                        "--data-seed is the built-in benchmark's, and the target is manifest "
                        "data: add --benchmark synthetic");
  expect_one_line_error(hnclip("eval 2 --benchmark-size large" + common()), 2,
                        "--benchmark-size is the built-in benchmark's");
  const auto other = hnclip("eval 2 --data " + target + " --json" + common());
  EXPECT_NE(other.code, 0);
  EXPECT_NE(other.err.find("--allow-outside-root"), std::string::npos) << other.err;
}

// The count needs the run's training images; a built-in benchmark deleted from the cache since
// holds none a target could name, and is not generated again for it.
TEST_F(Cli, CountingTrainingImagesInATargetGeneratesNothing) {
  const auto trained = hnclip(small_train() + " --epochs 1 --json" + common());
  ASSERT_EQ(trained.code, 0) << trained.err;
  std::filesystem::path own;
  for (const auto& e : fs::directory_iterator(dir / "cache"))
    if (e.path().filename().string().rfind("synthetic-small-s1-", 0) == 0) own = e.path();
  ASSERT_FALSE(own.empty());
  fs::remove_all(own);
  const auto r = hnclip("eval 1 --data-seed 2 --json" + common());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["training_images"], 0);
  EXPECT_FALSE(fs::exists(own)) << "the run's own benchmark was generated again";
}

// A run without probes printed the table's header and footnote over no rows; it says why.
TEST_F(Cli, ProbesOfARunWithoutThemSayWhy) {
  ASSERT_EQ(hnclip(small_train() + " --epochs 1 --probe-every 0 --json" + common()).code, 0);
  ASSERT_EQ(hnclip(small_train() + " --epochs 1 --probe-every 100 --json" + common()).code, 0);
  const auto off = hnclip("probes 1" + common());
  ASSERT_EQ(off.code, 0) << off.err;
  EXPECT_EQ(off.out, "run 1 has no gradient probes: it was trained with --probe-every 0 (off)\n");
  const auto rare = hnclip("probes 2" + common());
  ASSERT_EQ(rare.code, 0) << rare.err;
  EXPECT_EQ(rare.out,
            "run 2 has no gradient probes: it probes every 100 steps and has 16 steps recorded\n");
  // Machine-readable output stays what it was: empty lists.
  const auto j = json::parse(hnclip("probes 1 --json" + common()).out);
  EXPECT_TRUE(j["probes"].empty());
}

// `show` listed a checkpoint whose file had been deleted like any other; only eval or export said
// it was missing. It says so beside the path, and --json has "exists".
TEST_F(Cli, ShowSaysWhichCheckpointFilesAreMissing) {
  ASSERT_EQ(hnclip(small_train() + " --probe-every 0 --json" + common()).code, 0);
  const auto shown = json::parse(hnclip("show 1 --json" + common()).out)["checkpoints"];
  ASSERT_EQ(shown.size(), 2u);
  EXPECT_TRUE(shown[0]["exists"].get<bool>());
  const std::string gone = shown[0]["path"];
  fs::remove(gone);
  const auto after = json::parse(hnclip("show 1 --json" + common()).out)["checkpoints"];
  EXPECT_FALSE(after[0]["exists"].get<bool>());
  EXPECT_TRUE(after[1]["exists"].get<bool>());
  const auto text = hnclip("show 1" + common()).out;
  EXPECT_NE(text.find("  checkpoint epoch 1: " + gone +
                      " (missing: eval, export and resume of it fail)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  checkpoint epoch 2: " + after[1]["path"].get<std::string>() + "\n"),
            std::string::npos)
      << text;
}

// A manifest rewritten after a run still opens under the run's stored path. `eval` replaced the
// run's stored epoch recall with a number on the other data (70 of the 142 test images here; the
// start row and the data summary still said 142), and the best epoch was then chosen across both;
// `resume` trained one run on two data sets. Both are refused, nothing is stored, and the run
// evaluates again once the file is put back.
TEST_F(Cli, ADataSetChangedAfterTheRunIsRefusedByEvalAndResume) {
  const auto manifest = hnclip::test::generated_small_manifest(dir / "cache");
  ASSERT_FALSE(manifest.file.empty());
  const fs::path& data = manifest.file;
  const auto& samples = manifest.samples;
  const auto write = [&](const std::vector<json>& lines) { manifest.write(lines); };
  auto trained =
      hnclip("train --benchmark manifest --data " + data.string() +
             " --epochs 2 --batch 32 --lr 1e-3 --threads 1 --probe-every 0 --json" + common());
  ASSERT_EQ(trained.code, 0) << trained.err;
  const auto before = json::parse(hnclip("show 1 --json" + common()).out)["evaluations"];
  const std::string label = "run 1 was trained and tested on manifest " + data.string() +
                            ", which has changed since: its test split ";

  auto edited = samples;  // one test caption says something else: the same counts
  for (auto& j : edited) {
    if (j["split"] == "test") {
      j["captions"][0] = "a caption written after the run";
      break;
    }
  }
  write(edited);
  expect_one_line_error(hnclip("eval 1" + common()), 2,
                        label +
                            "holds other images or captions (the same 142 images, 142 "
                            "captions). Nothing was evaluated or stored");
  {
    hnclip::RunStore store(db());
    store.set_status(1, hnclip::RunStatus::Stopped, "stopped by the test");
  }
  expect_one_line_error(hnclip("train --resume 1" + common()), 2,
                        label +
                            "holds other images or captions (the same 142 images, 142 "
                            "captions). Resuming would train");

  std::vector<json> fewer;  // half the test images gone
  int test_lines = 0;
  for (const auto& j : samples)
    if (j["split"] != "test" || test_lines++ % 2 == 0) fewer.push_back(j);
  write(fewer);
  expect_one_line_error(hnclip("eval 1" + common()), 2,
                        label +
                            "holds 71 images, 71 captions, not the 142 images, 142 captions "
                            "it held.");
  EXPECT_EQ(json::parse(hnclip("show 1 --json" + common()).out)["evaluations"], before)
      << "a refused evaluation stored nothing";

  write(samples);  // put back: the same run evaluates to its stored recall
  auto again = hnclip("eval 1 --json" + common());
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(json::parse(again.out)["t2i"], json::parse(trained.out)["t2i"]);
}

// Two databases in one folder each number their runs from 1. Their checkpoints were both kept in
// checkpoints/run-1 beside them, so the second database's run 1 overwrote the first's: `eval 1`
// of the first then scored the other run's weights (85.2 where its stored recall said 83.8).
TEST_F(Cli, TwoDatabasesInOneFolderKeepTheirOwnCheckpoints) {
  const std::string cache = " --cache-dir " + (dir / "cache").string();
  const std::string a = " --db " + (dir / "a.db").string() + cache;
  const std::string b = " --db " + (dir / "b.db").string() + cache;
  const std::string train = small_train() + " --epochs 1 --probe-every 0 --json";
  auto first = hnclip(train + " --seed 1" + a);
  ASSERT_EQ(first.code, 0) << first.err;
  const auto shown_a = json::parse(hnclip("show 1 --json" + a).out);
  const std::string path_a = shown_a["checkpoints"][0]["path"];
  auto read_all = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string bytes_a = read_all(path_a);
  ASSERT_FALSE(bytes_a.empty());

  auto second = hnclip(train + " --seed 2 --lr 3e-3" + b);
  ASSERT_EQ(second.code, 0) << second.err;
  const std::string path_b = json::parse(hnclip("show 1 --json" + b).out)["checkpoints"][0]["path"];
  EXPECT_NE(path_a, path_b);
  EXPECT_EQ(fs::path(path_a).parent_path(),
            fs::path(run_checkpoint_dir((dir / "a.db").string(), 1)));
  EXPECT_TRUE(read_all(path_a) == bytes_a) << path_a << " was overwritten by b.db's run 1";
  // And a's run 1 still scores what a stored for it.
  auto ev = hnclip("eval 1 --json" + a);
  ASSERT_EQ(ev.code, 0) << ev.err;
  EXPECT_EQ(json::parse(ev.out)["t2i"], json::parse(first.out)["t2i"]);
  EXPECT_EQ(json::parse(ev.out)["i2t"], json::parse(first.out)["i2t"]);
}

// A run trained with a relative --db recorded its checkpoints relative to the folder it was
// started in: `eval 1` given the same database by its full path from anywhere else answered
// "checkpoint checkpoints/run-1/epoch-1.pt of run 1 is missing"; with a relative --init it
// answered "--init start.pt: no such file or folder".
TEST_F(Cli, ARunStartedWithRelativePathsIsFoundFromAnyFolder) {
  fs::copy_file(
      fs::path(HNCLIP_TEST_SOURCE_DIR) / "../resources/checkpoints/tiny-synthetic-pretrained.pt",
      dir / "start.pt");
  std::string out, err;
  const int code = hnclip::test::run_command(
      "cd " + dir.path().string() + " && " + HNCLIP_CLI_PATH + " " + small_train() +
          " --epochs 1 --probe-every 0 --json --db rel.db --cache-dir cache --init start.pt",
      &out, &err);
  ASSERT_EQ(code, 0) << err;
  const std::string elsewhere = " --db " + (dir / "rel.db").string() + " --cache-dir " +
                                (dir / "cache").string();  // from the test's own folder
  const std::string path =
      json::parse(hnclip("show 1 --json" + elsewhere).out)["checkpoints"][0]["path"];
  EXPECT_TRUE(fs::path(path).is_absolute()) << path;
  EXPECT_EQ(json::parse(hnclip("show 1 --json" + elsewhere).out)["config"]["init"],
            (dir / "start.pt").string());
  auto ev = hnclip("eval 1 --json" + elsewhere);
  ASSERT_EQ(ev.code, 0) << ev.err;
  EXPECT_EQ(json::parse(ev.out)["t2i"], json::parse(out)["t2i"]);
}

// --epoch takes best, last or digits ("2x" was read as 2); an epoch without a checkpoint is
// refused with the epochs that have one; "best" of a run with no evaluated fine-tuned epoch takes
// the last checkpoint and says so (it did so silently).
TEST_F(Cli, EpochChoiceIsExactAndItsFallbackIsSaid) {
  auto trained = hnclip(small_train() + " --json" + common());
  ASSERT_EQ(trained.code, 0) << trained.err;
  const std::string out = " " + (dir / "e.pt").string() + common();
  for (const std::string bad : {"2x", "-1", "", "1.5"})
    expect_one_line_error(hnclip("export --run 1 --epoch '" + bad + "'" + out), 2,
                          "--epoch must be best, last or an epoch number (got '" + bad + "')");
  expect_one_line_error(hnclip("export --run 1 --epoch 7" + out), 2,
                        "--epoch 7: run 1 has no checkpoint for it (it has epochs 1, 2)");
  const auto best = hnclip("export --run 1" + out);
  ASSERT_EQ(best.code, 0) << best.err;
  EXPECT_EQ(best.err.find("--epoch best"), std::string::npos) << best.err;
  hnclip::RunStore(db()).delete_epoch_evals_after(1, 0);  // only the start's rows are left
  const auto fallback = hnclip("export --run 1" + out);
  ASSERT_EQ(fallback.code, 0) << fallback.err;
  EXPECT_NE(fallback.err.find("--epoch best: run 1 has no evaluated fine-tuned epoch; taking its "
                              "last checkpoint, epoch 2"),
            std::string::npos)
      << fallback.err;
  EXPECT_NE(fallback.out.find("epoch-2.pt"), std::string::npos) << fallback.out;
}

// A run whose stored config this version cannot read (another version's, or edited by hand):
// `runs` and `show` list it and every other run, its settings unknown and the reason given;
// commands that need its config (eval, resume) refuse it with the run's number. Before, one such
// run made `runs` fail outright and the error never said whose config it was.
TEST_F(Cli, ARunWhoseConfigCannotBeReadHidesNoOtherRun) {
  auto first = hnclip(small_train() + " --epochs 1 --json" + common());
  ASSERT_EQ(first.code, 0) << first.err;
  {
    hnclip::RunStore store(db());
    hnclip::RunRecord r;
    r.name = "from elsewhere";
    r.status = hnclip::RunStatus::Finished;
    r.config_json = R"({"epochs": "two"})";
    const int64_t id = store.create_run(r);
    store.set_status(id, hnclip::RunStatus::Stopped, "stopped by the test");
    const auto good = store.checkpoints(1).at(0);
    store.add_checkpoint(id, good);  // a checkpoint that loads: only the config is in the way
  }
  const auto table = hnclip("runs" + common());
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("from elsewhere"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("synthetic small (seed 1) / test"), std::string::npos) << table.out;
  const auto listed = runs();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0]["config_error"],
            "run 2: its stored configuration cannot be read: config key 'epochs' has the wrong "
            "type: \"two\"");
  EXPECT_TRUE(listed[0]["gamma"].is_null());
  EXPECT_FALSE(listed[1].contains("config_error"));
  EXPECT_EQ(listed[1]["epochs"], 1);
  const auto shown = hnclip("show 2" + common());
  ASSERT_EQ(shown.code, 0) << shown.err;
  EXPECT_NE(shown.out.find("\n  run 2: its stored configuration cannot be read: "),
            std::string::npos)
      << shown.out;
  EXPECT_NE(shown.out.find("\n  config {\"epochs\":\"two\"}\n"), std::string::npos) << shown.out;
  expect_one_line_error(hnclip("eval --run 2" + common()), 2,
                        "run 2: its stored configuration cannot be read");
  expect_one_line_error(hnclip("train --resume 2" + common()), 2,
                        "run 2: its stored configuration cannot be read");
  EXPECT_EQ(runs().size(), 2u);
}

// A recorded checkpoint's file is complete when its row is written, so a missing one was removed
// since. `--resume` then continued from the newest file left (or from the start) and deleted the
// stored results of the epochs after it, saying only "resuming run 1 after epoch 1". It is
// refused, naming the file and what would be replaced, and nothing changes.
TEST_F(Cli, ResumeRefusesARunWhoseLastCheckpointFileIsMissing) {
  ASSERT_EQ(hnclip(small_train() + " --epochs 3 --probe-every 0 --json" + common()).code, 0);
  hnclip::RunStore(db()).set_status(1, hnclip::RunStatus::Stopped, "stopped by the test");
  const auto before = json::parse(hnclip("show 1 --json" + common()).out);
  ASSERT_EQ(before["checkpoints"].size(), 3u);
  const std::string last = before["checkpoints"][2]["path"];
  fs::remove(last);
  expect_one_line_error(hnclip("train --resume 1" + common()), 2,
                        "--resume 1: the checkpoint of its last epoch, 3, is missing (" + last +
                            "): resuming would continue after epoch 2, the newest file present, "
                            "and replace the stored results of epoch 3. Nothing was changed");
  for (int e : {0, 1}) fs::remove(before["checkpoints"][e]["path"].get<std::string>());
  expect_one_line_error(hnclip("train --resume 1" + common()), 2,
                        "resuming would continue from the start, no checkpoint file being left, "
                        "and replace the stored results of epochs 1–3.");
  auto after = json::parse(hnclip("show 1 --json" + common()).out);
  EXPECT_EQ(after["evaluations"], before["evaluations"]);
  EXPECT_EQ(after["steps"], before["steps"]);
  EXPECT_EQ(after["status"], "stopped");
}

// A run tested on "val" (--test-split) that stopped after its best epoch: the resume keeps that
// best (chosen on val, not on a "test" split the run never evaluated), reports its recall although
// this process did not evaluate it, and `show`, `runs` and --epoch best agree.
TEST_F(Cli, ResumedRunKeepsItsEarlierBestOnItsOwnTestSplit) {
  auto first = hnclip(small_train() + " --test-split val --json" + common());
  ASSERT_EQ(first.code, 0) << first.err;
  const auto shown = json::parse(hnclip("show 1 --json" + common()).out);
  ASSERT_EQ(shown["checkpoints"].size(), 2u);
  {
    // As if stopped during epoch 2 after a perfect epoch 1: epoch 2's checkpoint was never
    // written (neither its file nor its row: a missing file alone is refused, see below).
    hnclip::RunStore store(db());
    store.set_status(1, hnclip::RunStatus::Stopped, "stopped by the test");
    hnclip::RetrievalResult t2i, i2t;
    t2i.direction = "t2i";
    i2t.direction = "i2t";
    t2i.recall = i2t.recall = {{1, 100.0}, {5, 100.0}, {10, 100.0}};
    store.write_epoch_eval(1, 1, shown["checkpoints"][0]["step"].get<int64_t>(), "val", t2i, i2t);
    fs::remove(shown["checkpoints"][1]["path"].get<std::string>());
  }
  sql(db(), "DELETE FROM checkpoints WHERE run_id = 1 AND epoch = 2");
  auto resumed = hnclip("train --resume 1 --json" + common());
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  const auto j = json::parse(resumed.out);
  EXPECT_EQ(j["best_epoch"], 1) << resumed.out;
  ASSERT_TRUE(j["t2i"].is_object()) << resumed.out;
  EXPECT_EQ(j["t2i"]["R@1"], 100.0);
  EXPECT_EQ(j["i2t"]["R@10"], 100.0);

  const auto after = json::parse(hnclip("show 1 --json" + common()).out);
  EXPECT_EQ(after["best_epoch"], 1);
  EXPECT_EQ(after["best"]["t2i"]["R@1"], 100.0);
  EXPECT_EQ(runs()[0]["best_epoch"], 1);
  auto exported =
      hnclip("export --run 1 --epoch best " + (dir / "best.pt").string() + " --json" + common());
  ASSERT_EQ(exported.code, 0) << exported.err;
  EXPECT_EQ(json::parse(exported.out)["epoch"], 1) << exported.out;
}

TEST_F(Cli, BenchmarkJsonReportsTableA1) {
  auto r = hnclip("benchmark --benchmark-size small --json" + common());
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["train"], 512);
  EXPECT_EQ(j["test"], 142);
  for (const char* split : {"train", "test"}) {
    const auto& s = j["splits"][split];
    EXPECT_GE(s["median_hardest"].get<double>(), 0.9) << split;
    EXPECT_GE(s["mean_words"].get<double>(), 60) << split;
    EXPECT_LE(s["mean_words"].get<double>(), 150) << split;
    EXPECT_LT(s["mean_pairwise"].get<double>(), s["mean_hardest"].get<double>());
  }
}

// --batch-sampler families keeps the built-in benchmark's near-twin families inside batches: the
// run says how many near-twin pairs share a batch, nearly all of them against a few percent for
// random batches, with the same number of steps (req 10).
TEST_F(Cli, FamilyBatchesPutNearTwinsTogether) {
  auto share = [](const std::string& err) {
    const auto at = err.find("near-twin pairs of the training images (");
    EXPECT_NE(at, std::string::npos) << err;
    return at == std::string::npos ? -1.0 : std::stod(err.substr(at + 40));
  };
  const auto random = hnclip(small_train() + " --epochs 1 --json" + common());
  ASSERT_EQ(random.code, 0) << random.err;
  EXPECT_NE(random.err.find("batches: random"), std::string::npos) << random.err;
  const auto families = hnclip(small_train() + " --epochs 1 --batch-sampler families --json" + common());
  ASSERT_EQ(families.code, 0) << families.err;
  EXPECT_NE(families.err.find("batches: families"), std::string::npos) << families.err;
  EXPECT_LT(share(random.err), 20.0);
  EXPECT_GT(share(families.err), 90.0);
  const auto r = json::parse(random.out), f = json::parse(families.out);
  EXPECT_EQ(f["config"]["batch_sampler"], "families");
  EXPECT_EQ(r["config"]["batch_sampler"], "random");
  hnclip::RunStore store(db());
  EXPECT_EQ(store.step_metrics(f["run_id"].get<int64_t>()).size(),
            store.step_metrics(r["run_id"].get<int64_t>()).size());
  expect_one_line_error(hnclip(small_train() + " --batch-sampler twins" + common()), 2,
                        "--batch-sampler");
}

}  // namespace

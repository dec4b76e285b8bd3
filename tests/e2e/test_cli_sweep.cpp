// End-to-end tests of `hnclip sweep`, `experiments` and `experiment show|resume|eval` on the
// built-in benchmark (size small, 1 epoch): a grid with its controls trains to a table; the same
// grid again reuses every run; its runs are evaluated on the shifted test set (transfer columns); a kill in the middle of an experiment resumes to the same table as an
// uninterrupted one (the trainer is deterministic on the CPU), and so does training two runs at a
// time; bad input is refused with one line naming what is wrong, and nothing is stored.

#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "store/run_store.h"
#include "support/cli_runner.h"
#include "support/generated_manifest.h"
#include "support/test_dirs.h"

namespace {

using nlohmann::json;
using hnclip::test::CliResult;
using hnclip::test::expect_one_line_error;

// 4 configurations (γ 0.5 at s 100; its paired γ 0; a learnt scale; s 10) × 2 seeds = 8 runs.
constexpr const char* kSweep =
    "sweep --benchmark-size small --epochs 1 --batch 32 --lr 1e-3 --threads 1 --logit-scale 100 "
    "--fixed-scale --set loss_gamma=0.5 --seeds 1,2 --control-scales 10 --name grid --parallel 1";

class CliSweep : public ::testing::Test {
 protected:
  hnclip::test::ScratchDir dir;
  std::string common(const std::string& db = "runs.db") const {
    return " --db " + (dir / db).string() + " --cache-dir " + (dir / "cache").string();
  }
  CliResult hnclip(const std::string& args) const { return hnclip::test::run_hnclip(args); }
  CliResult hnclip_killed_at(const std::string& point, const std::string& args) const {
    CliResult r;
    r.code = hnclip::test::run_command("HNCLIP_FAULT_POINT=" + point + " " +
                                           std::string(HNCLIP_CLI_PATH) + " " + args,
                                       &r.out, &r.err);
    return r;
  }
  size_t stored_runs(const std::string& db = "runs.db") const {
    if (!std::filesystem::exists(dir / db)) return 0;  // nothing stored, not even a database
    const auto r = hnclip("runs --json" + common(db));
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(r.out).size();
  }
  // (cell label, seed) -> test R@1 both directions, from a table's JSON.
  static std::map<std::pair<std::string, int64_t>, std::pair<double, double>> recalls(
      const json& table) {
    std::map<std::pair<std::string, int64_t>, std::pair<double, double>> out;
    for (const auto& c : table["cells"]) {
      for (const auto& s : c["seeds"]) {
        out[{c["label"], s["seed"]}] = {s["recall"]["t2i"]["R@1"], s["recall"]["i2t"]["R@1"]};
      }
    }
    return out;
  }
};

TEST_F(CliSweep, GridWithControlsThenReuseThenKillAndResume) {
  const auto first = hnclip(std::string(kSweep) + " --json" + common());
  ASSERT_EQ(first.code, 0) << first.err;
  const json table = json::parse(first.out);
  EXPECT_EQ(table["status"], "finished");
  EXPECT_EQ(table["runs_total"], 8);
  EXPECT_EQ(table["runs_with_result"], 8);
  EXPECT_EQ(table["selection"], "val");  // the built-in benchmark's validation split
  EXPECT_TRUE(table["controls"].get<bool>());
  ASSERT_EQ(table["cells"].size(), 4u);
  std::vector<std::string> roles;
  for (const auto& c : table["cells"]) roles.push_back(c["role"]);
  EXPECT_EQ(roles, (std::vector<std::string>{"method", "paired", "learnable-scale", "fixed-scale"}));
  std::vector<std::string> kinds;
  for (const auto& c : table["comparisons"]) kinds.push_back(c["kind"]);
  EXPECT_EQ(kinds, (std::vector<std::string>{"paired", "learnt scale", "strongest"}));
  for (const auto& c : table["comparisons"]) {
    EXPECT_EQ(c["t2i"]["n"], 2);
    EXPECT_EQ(c["t2i"]["mcnemar_p_per_seed"].size(), 2u);
    EXPECT_FALSE(c["t2i"]["mcnemar_p_per_seed"][0].is_null()) << c.dump();
  }
  for (const auto& c : table["cells"]) {
    for (const auto& s : c["seeds"]) {
      EXPECT_GE(s["epoch"].get<int>(), 1);
      EXPECT_FALSE(s["reused"].get<bool>());
    }
  }
  EXPECT_EQ(stored_runs(), 8u);

  // The same grid again: every slot is filled by the run that already exists.
  const auto again = hnclip(std::string(kSweep) + common());
  ASSERT_EQ(again.code, 0) << again.err;
  size_t reuse_lines = 0;
  for (size_t p = 0; (p = again.err.find("reusing finished run", p)) != std::string::npos; ++p)
    ++reuse_lines;
  EXPECT_EQ(reuse_lines, 8u) << again.err;
  EXPECT_EQ(stored_runs(), 8u);
  EXPECT_NE(again.out.find("epoch selection: best fine-tuned epoch by mean R@1 on the validation"),
            std::string::npos)
      << again.out;

  const auto list = hnclip("experiments --json" + common());
  ASSERT_EQ(list.code, 0) << list.err;
  ASSERT_EQ(json::parse(list.out).size(), 2u);
  EXPECT_EQ(json::parse(list.out)[0]["runs_reused"], 8);
  const auto csv = hnclip("experiment show 1 --csv" + common());
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("cell,label,role,selection", 0), 0u) << csv.out;
  const auto latex = hnclip("experiment show 1 --latex" + common());
  ASSERT_EQ(latex.code, 0) << latex.err;
  EXPECT_NE(latex.out.find("\\toprule"), std::string::npos);

  // Cross-domain: every run's selected checkpoint on the shifted test set, as transfer columns.
  expect_one_line_error(hnclip("experiment eval 1" + common()), 2, "say what to evaluate on");
  const auto transfer = hnclip("experiment eval 1 --split shifted --json" + common());
  ASSERT_EQ(transfer.code, 0) << transfer.err;
  const json tj = json::parse(transfer.out);
  ASSERT_EQ(tj["transfers"].size(), 1u);
  EXPECT_EQ(tj["transfers"][0]["split"], "shifted");
  for (const auto& c : tj["transfers"][0]["cells"]) {
    EXPECT_EQ(c["seeds_evaluated"], 2);
    EXPECT_FALSE(c["t2i"]["R@1"]["mean"].is_null());
  }
  EXPECT_EQ(recalls(tj), recalls(table));  // the in-domain table is unchanged
  const auto shown = hnclip("experiment show 1" + common());
  EXPECT_NE(shown.out.find("[1] shifted (synthetic:size=small:seed=1)"), std::string::npos)
      << shown.out;

  // In another database: killed inside the third run's second step (16 steps an epoch), then
  // resumed — the table must equal the uninterrupted one, run for run.
  const auto killed = hnclip_killed_at("train.step:34", std::string(kSweep) + common("b.db"));
  ASSERT_EQ(killed.code, 137) << killed.err;
  const auto listed = json::parse(hnclip("experiments --json" + common("b.db")).out);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["status"], "interrupted");
  EXPECT_EQ(listed[0]["runs_finished"], 2);
  const auto resumed = hnclip("experiment resume 1 --json" + common("b.db"));
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resumed run 3"), std::string::npos) << resumed.err;
  const json after = json::parse(resumed.out);
  EXPECT_EQ(after["status"], "finished");
  EXPECT_EQ(recalls(after), recalls(table));
  EXPECT_EQ(stored_runs("b.db"), 8u);  // the interrupted run was resumed, not trained anew

  // Two runs at a time (each on its own thread, built one after the other): the same table.
  const auto parallel = hnclip(std::string(kSweep) + " --parallel 2 --json" + common("c.db"));
  ASSERT_EQ(parallel.code, 0) << parallel.err;
  EXPECT_EQ(recalls(json::parse(parallel.out)), recalls(table));
}

// A finished run is reused for a slot of the same configuration, and a configuration names its
// data by path: after the manifest was written again (one test caption changed), the same sweep
// reused the run trained on the earlier file and put it in one table with runs on the new one.
// It trains the slot anew and says why; unchanged data is still reused.
TEST_F(CliSweep, ARunOnDataChangedSinceIsNotReused) {
  const auto manifest = hnclip::test::generated_small_manifest(dir / "cache");
  ASSERT_FALSE(manifest.file.empty());
  const std::string sweep = "sweep --benchmark manifest --data " + manifest.file.string() +
                            " --epochs 1 --batch 32 --threads 1 --probe-every 0 --seeds 1 "
                            "--no-controls --json" +
                            common();
  const auto first = hnclip(sweep);
  ASSERT_EQ(first.code, 0) << first.err;
  const auto again = hnclip(sweep);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.err.find("reusing finished run 1"), std::string::npos) << again.err;
  EXPECT_EQ(stored_runs(), 1u);

  auto edited = manifest.samples;
  for (auto& j : edited) {
    if (j["split"] == "test") {
      j["captions"][0] = "a caption written after the run";
      break;
    }
  }
  manifest.write(edited);
  const auto changed = hnclip(sweep);
  ASSERT_EQ(changed.code, 0) << changed.err;
  EXPECT_NE(changed.err.find("not reusing finished run 1 for "), std::string::npos) << changed.err;
  EXPECT_NE(changed.err.find(": its data changed since (its test split holds other images or "
                             "captions (the same 142 images, 142 captions)); training it anew"),
            std::string::npos)
      << changed.err;
  EXPECT_EQ(stored_runs(), 2u);
  const auto table = json::parse(changed.out);
  EXPECT_EQ(table["cells"][0]["seeds"][0]["run_id"], 2) << changed.out;
}

TEST_F(CliSweep, BadInputIsRefusedBeforeAnythingIsStored) {
  const std::string base = "sweep --benchmark-size small --epochs 1 --batch 32" + common();
  expect_one_line_error(hnclip(base + " --set loss_gama=0,1"), 2,
                        "'loss_gama' is not a run configuration key");
  expect_one_line_error(hnclip(base + " --set loss_gamma=0,-1"), 2,
                        "--set loss_gamma=-1: --gamma must be finite and >= 0");
  expect_one_line_error(hnclip(base + " --set loss_gamma="), 2, "no values for loss_gamma");
  expect_one_line_error(hnclip(base + " --name 'two\nlines'"), 2,
                        "the experiment's name (--name, or the file's \"name\") must be one line");
  expect_one_line_error(hnclip(base + " --seeds 1,x"), 2, "--seeds 1,x: 'x'");
  // Given empty (an unset shell variable): refused, not read as the default 1,2,3.
  expect_one_line_error(hnclip(base + " --seeds ''"), 2, "--seeds: no values");
  expect_one_line_error(hnclip(base + " --control-scales ''"), 2, "--control-scales: no values");
  // A value twice made one cell that the command line had asked for twice.
  expect_one_line_error(hnclip(base + " --set loss_gamma=0.5,0.50"), 2,
                        "--set loss_gamma: the value 0.5 is given twice");
  expect_one_line_error(hnclip(base + " --seed 3"), 2, "--seeds");
  expect_one_line_error(hnclip(base + " --set lr=1e-4,2e-4,3e-4,4e-4,5e-4,6e-4,7e-4 --set "
                                      "batch_size=8,16,32,64,128,256,512,1024,2048,4096"),
                        2, "210 runs");
  hnclip::test::write_text_file(dir / "bad.json", "{\n  \"axes\": [\n    {\"key\": \"loss_gamma\" \"values\": [0]}\n]}\n");
  expect_one_line_error(hnclip(base + " --config " + (dir / "bad.json").string()), 2,
                        "bad.json:3: not JSON");
  hnclip::test::write_text_file(dir / "unknown.json", R"({"axes": [], "sedes": [1]})");
  expect_one_line_error(hnclip(base + " --config " + (dir / "unknown.json").string()), 2,
                        "experiment key 'sedes' is unknown");
  // A misspelt base key is refused, not dropped (which left every run at the default 10 epochs).
  hnclip::test::write_text_file(dir / "typo.json", R"({"base": {"epoch": 2}})");
  expect_one_line_error(hnclip(base + " --config " + (dir / "typo.json").string()), 2,
                        "typo.json: base configuration: config key 'epoch' is unknown (did you "
                        "mean 'epochs'?)");
  hnclip::test::write_text_file(dir / "seeded.json", R"({"base": {"seed": 7}})");
  expect_one_line_error(hnclip(base + " --config " + (dir / "seeded.json").string()), 2,
                        "seeded.json: base configuration: 'seed' is not read from the base");
  expect_one_line_error(hnclip(base + " --set gamma=0,1"), 2, "(did you mean 'loss_gamma'?)");
  // The file's values and axes are refused naming the file too.
  hnclip::test::write_text_file(dir / "typed.json", R"({"base": {"epochs": "2"}})");
  expect_one_line_error(hnclip(base + " --config " + (dir / "typed.json").string()), 2,
                        "typed.json: base configuration: config key 'epochs' has the wrong type");
  hnclip::test::write_text_file(dir / "axis.json",
                                R"({"axes": [{"key": "gamma", "values": [0.5]}]})");
  expect_one_line_error(hnclip(base + " --config " + (dir / "axis.json").string()), 2,
                        "axis.json: axis 'gamma': config key 'gamma' is unknown (did you mean "
                        "'loss_gamma'?)");
  // Files and splits the runs name are checked before the experiment is recorded: each of these
  // recorded an experiment whose every run then failed to start ("could not start …").
  const auto recorded_nothing = " (cell 'InfoNCE · s learnt'; no experiment was recorded)";
  const auto missing = (dir / "missing.jsonl").string();
  expect_one_line_error(
      hnclip(base + " --benchmark-size default --benchmark manifest --data " + missing), 1,
      missing + ": cannot read manifest: no such file" + recorded_nothing);
  const auto no_init = (dir / "missing.pt").string();
  expect_one_line_error(hnclip(base + " --init " + no_init), 1,
                        "--init " + no_init + ": no such file or folder" + recorded_nothing);
  expect_one_line_error(hnclip(base + " --set test_split=test,nosuch"), 2,
                        "--test-split nosuch: benchmark 'synthetic': unknown split 'nosuch'");
  expect_one_line_error(hnclip(base + " --set val_split=nosuch"), 2, "--val-split nosuch");
  // Nothing was recorded by any of them: not even a database, which the commands that only
  // read refuse to conjure (an empty one would list nothing and hide a mistyped --db).
  EXPECT_FALSE(std::filesystem::exists(dir / "runs.db"));
  expect_one_line_error(hnclip("experiment show 7" + common()), 2,
                        "runs.db: no database there (train and sweep create one)");
  expect_one_line_error(hnclip("experiments --json" + common()), 2, "no database there");
  EXPECT_FALSE(std::filesystem::exists(dir / "runs.db"));
  hnclip::RunStore((dir / "runs.db").string()).list_runs();  // empty: now the id is the mistake
  expect_one_line_error(hnclip("experiment show 7" + common()), 2, "no experiment 7");
}

TEST_F(CliSweep, DryRunShowsTheGridOfAPreset) {
  const auto r = hnclip("sweep --preset gamma-scale --dry-run" + common());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("11 configurations × 3 seeds = 33 runs; selection: val"), std::string::npos)
      << r.out;
  // Cell, role and configuration stand in columns, whatever the cell number's digits.
  EXPECT_NE(r.out.find("\n  cell  role             configuration\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n     0  paired           InfoNCE · s 10 fixed\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\n    10  fixed-scale      InfoNCE · s 50 fixed\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(" lr=0.001"), std::string::npos) << r.out;  // the presets' recipe
  // Train flags given with a preset change its recipe, flags (no value) included.
  const auto changed = hnclip("sweep --preset gbar --epochs 3 --lr 7e-5 --fixed-scale=false --dry-run" +
                              common());
  ASSERT_EQ(changed.code, 0) << changed.err;
  EXPECT_NE(changed.out.find(" epochs=3"), std::string::npos) << changed.out;
  EXPECT_NE(changed.out.find(" lr=7e-05"), std::string::npos) << changed.out;
  EXPECT_EQ(changed.out.find("fixed_scale=true"), std::string::npos) << changed.out;
  EXPECT_EQ(stored_runs(), 0u);
}

// A --config file's base starts where the same keys given as `train` flags would: on the
// built-in benchmark from the committed checkpoint (said on stderr), unless the file or a flag
// names another start. Before, a file without "init" trained every run from random weights and
// the dry run's "keys that differ from train's defaults" did not say so.
TEST_F(CliSweep, ConfigFileStartsWhereTrainWould) {
  const auto file = dir / "grid.json";
  hnclip::test::write_text_file(
      file, R"({"base": {"epochs": 1}, "axes": [{"key": "loss_gamma", "values": [0.5]}]})");
  const std::string sweep = "sweep --dry-run --seeds 1 --no-controls --config " + file.string();
  const auto from_flags = hnclip("sweep --dry-run --seeds 1 --no-controls --epochs 1 --set "
                                 "loss_gamma=0.5" + common());
  ASSERT_EQ(from_flags.code, 0) << from_flags.err;
  const auto from_file = hnclip(sweep + common());
  ASSERT_EQ(from_file.code, 0) << from_file.err;
  EXPECT_NE(from_file.out.find("init=\"pretrained\""), std::string::npos) << from_file.out;
  EXPECT_NE(from_file.err.find("starting from --init pretrained"), std::string::npos)
      << from_file.err;
  EXPECT_EQ(from_file.out, from_flags.out);
  const auto random = hnclip(sweep + " --init random" + common());
  ASSERT_EQ(random.code, 0) << random.err;
  EXPECT_EQ(random.out.find("init="), std::string::npos) << random.out;
  hnclip::test::write_text_file(
      file, R"({"base": {"init": "random"}, "axes": [{"key": "loss_gamma", "values": [0.5]}]})");
  const auto random_in_file = hnclip(sweep + common());
  ASSERT_EQ(random_in_file.code, 0) << random_in_file.err;
  EXPECT_EQ(random_in_file.out.find("init="), std::string::npos) << random_in_file.out;
  EXPECT_EQ(stored_runs(), 0u);
}

}  // namespace

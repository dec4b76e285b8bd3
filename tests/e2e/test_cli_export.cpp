// End-to-end tests of `hnclip export`: a 1-epoch run on the built-in benchmark (size small) is
// exported and Python's torch.load reads the file with OpenAI CLIP's names, fp32 tensors and the
// checksum the CLI printed; --format safetensors writes the same tensors with the model config,
// run and epoch in __metadata__; --checkpoint and --epoch pick the same weights; bad flags are
// refused with exit code 2, naming the flag, and no file written. --metrics writes the run's
// steps, probes and evaluations as CSV or JSON lines that agree with `hnclip show`.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <fstream>
#include <iterator>
#include <sstream>

#include <nlohmann/json.hpp>

#include "job/workbench_paths.h"
#include "model/make_clip_model.h"
#include "model/safetensors_file.h"
#include "model/state_dict_file.h"
#include "store/run_store.h"
#include "support/cli_runner.h"
#include "support/test_dirs.h"
#include "train/checkpoint.h"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

using hnclip::test::expect_one_line_error;

const std::string kScript =
    std::string(HNCLIP_TEST_SOURCE_DIR) + "/core/reference/state_dict_files.py";
// The safetensors reader written by hand from the format's specification (not the C++ one).
const std::string kSafetensorsScript =
    std::string(HNCLIP_TEST_SOURCE_DIR) + "/core/reference/safetensors_files.py";

struct PyEntry {
  std::string dtype, shape;
  double sum = 0;
};

// What Python's torch.load sees: key → dtype, shape, sum; and the keys in file order.
std::vector<std::pair<std::string, PyEntry>> python_view(const std::string& path,
                                                        const std::string& script = kScript) {
  std::string out, err;
  const int code = hnclip::test::run_command(
      std::string(HNCLIP_REFERENCE_PYTHON) + " " + script + " checksum " + path, &out, &err);
  EXPECT_EQ(code, 0) << err;
  std::vector<std::pair<std::string, PyEntry>> entries;
  std::istringstream lines(out);
  std::string key;
  PyEntry e;
  while (lines >> key >> e.dtype >> e.shape >> e.sum) entries.emplace_back(key, e);
  return entries;
}

class CliExport : public ::testing::Test {
 protected:
  // One trained run for the whole suite: training is the slow part.
  static void SetUpTestSuite() {
    dir_ = std::make_unique<hnclip::test::ScratchDir>();
    auto r = hnclip::test::run_hnclip(
        "train --benchmark-size small --epochs 1 --batch 32 --lr 1e-3 --threads 1 --json" +
        common());
    ASSERT_EQ(r.code, 0) << r.err;
    run_id_ = json::parse(r.out)["run_id"].get<int64_t>();
  }
  static void TearDownTestSuite() { dir_.reset(); }

  static std::string common() {
    return " --db " + (dir_->path() / "runs.db").string() + " --cache-dir " +
           (dir_->path() / "cache").string();
  }
  static std::string run_flag() { return " --run " + std::to_string(run_id_); }

  hnclip::test::ScratchDir out_dir;
  static std::unique_ptr<hnclip::test::ScratchDir> dir_;
  static int64_t run_id_;
};

std::unique_ptr<hnclip::test::ScratchDir> CliExport::dir_;
int64_t CliExport::run_id_ = 0;

TEST_F(CliExport, RunExportLoadsInPythonWithOpenAINamesAndTheSameChecksum) {
  const auto out = (out_dir / "clip.pt").string();
  auto r = hnclip::test::run_hnclip("export" + run_flag() + " --format state-dict --json" +
                                    common() + " " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = json::parse(r.out);
  EXPECT_EQ(j["run_id"], run_id_);
  EXPECT_EQ(j["epoch"], 1);
  EXPECT_EQ(j["format"], "state-dict");

  const auto py = python_view(out);
  ASSERT_EQ(py.size(), j["tensors"].get<size_t>());
  std::map<std::string, PyEntry> by_key(py.begin(), py.end());
  for (const char* key :
       {"visual.conv1.weight", "visual.class_embedding", "visual.proj", "token_embedding.weight",
        "positional_embedding", "transformer.resblocks.0.attn.in_proj_weight", "ln_final.weight",
        "text_projection", "logit_scale"}) {
    EXPECT_TRUE(by_key.count(key)) << key;
  }
  double total = 0;
  for (const auto& [key, e] : py) {
    EXPECT_EQ(e.dtype, "float32") << key;
    total += e.sum;
  }
  EXPECT_EQ(by_key["logit_scale"].shape, "scalar");
  const double checksum = j["checksum"].get<double>();
  EXPECT_NEAR(total, checksum, 1e-9 * std::max(1.0, std::abs(checksum)));

  // The C++ reader sees the same keys in the same order.
  const auto sd = hnclip::read_state_dict_file(out);
  ASSERT_EQ(sd.size(), py.size());
  for (size_t i = 0; i < sd.size(); ++i) EXPECT_EQ(sd[i].first, py[i].first);
}

TEST_F(CliExport, SafetensorsHoldsTheStateDictExportsTensorsAndTheModelConfig) {
  const auto st = (out_dir / "clip.safetensors").string();
  const auto pt = (out_dir / "clip.pt").string();
  auto r = hnclip::test::run_hnclip("export" + run_flag() + " --format safetensors --json" +
                                    common() + " " + st);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = json::parse(r.out);
  EXPECT_EQ(j["format"], "safetensors");
  ASSERT_EQ(hnclip::test::run_hnclip("export" + run_flag() + common() + " " + pt).code, 0);
  EXPECT_TRUE(hnclip::is_safetensors_file(st));
  EXPECT_FALSE(hnclip::is_safetensors_file(pt));
  // Without --format the name decides (a torch.save zip named .safetensors was written before),
  // and a --format the name contradicts is refused before anything is written.
  const auto named = (out_dir / "named.safetensors").string();
  const auto by_name = hnclip::test::run_hnclip("export" + run_flag() + common() + " " + named);
  ASSERT_EQ(by_name.code, 0) << by_name.err;
  EXPECT_NE(by_name.out.find("fp32, safetensors)"), std::string::npos) << by_name.out;
  EXPECT_TRUE(hnclip::is_safetensors_file(named));
  const auto contradicted = (out_dir / "contradicted.safetensors").string();
  expect_one_line_error(hnclip::test::run_hnclip("export" + run_flag() + " --format state-dict" +
                                                 common() + " " + contradicted),
                        2, "is named as safetensors");
  expect_one_line_error(hnclip::test::run_hnclip("export" + run_flag() + " --format safetensors" +
                                                 common() + " " + (out_dir / "c.pt").string()),
                        2, "is named as a torch.save file");
  EXPECT_FALSE(fs::exists(contradicted));
  EXPECT_FALSE(fs::exists(out_dir / "c.pt"));

  // The run may come before OUT, as `show 3` and `eval 3` take it: the same tensors.
  const auto positional = (out_dir / "positional.safetensors").string();
  const auto by_word = hnclip::test::run_hnclip("export " + std::to_string(run_id_) + " --json" +
                                                common() + " " + positional);
  ASSERT_EQ(by_word.code, 0) << by_word.err;
  EXPECT_EQ(json::parse(by_word.out)["run_id"], run_id_);
  EXPECT_EQ(hnclip::read_safetensors_file(positional).size(),
            hnclip::read_safetensors_file(st).size());
  const std::string id = std::to_string(run_id_);
  expect_one_line_error(hnclip::test::run_hnclip("export " + id + common()), 2,
                        "the output file goes after the run (hnclip export " + id + " OUT)");
  expect_one_line_error(hnclip::test::run_hnclip("export " + id + run_flag() + common() + " " +
                                                 (out_dir / "twice.pt").string()),
                        2, "the run is given twice");
  expect_one_line_error(
      hnclip::test::run_hnclip("export abc" + common() + " " + (out_dir / "abc.pt").string()), 2,
      "'abc' is not a run id");
  EXPECT_FALSE(fs::exists(out_dir / "twice.pt"));
  EXPECT_FALSE(fs::exists(out_dir / "abc.pt"));

  // The same names, order, dtype and values as the torch.save export.
  std::map<std::string, std::string> meta;
  const auto a = hnclip::read_safetensors_file(st, &meta);
  const auto b = hnclip::read_state_dict_file(pt);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.size(), j["tensors"].get<size_t>());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].first, b[i].first);
    EXPECT_EQ(a[i].second.scalar_type(), torch::kFloat) << a[i].first;
    EXPECT_TRUE(a[i].second.equal(b[i].second)) << a[i].first;
  }

  // __metadata__: Hugging Face's "format", and the run, epoch and model config it came from.
  EXPECT_EQ(meta["format"], "pt");
  EXPECT_EQ(meta["hnclip.run"], std::to_string(run_id_));
  EXPECT_EQ(meta["hnclip.epoch"], "1");
  auto show = hnclip::test::run_hnclip("show " + std::to_string(run_id_) + " --json" + common());
  ASSERT_EQ(show.code, 0) << show.err;
  const auto ckpt = json::parse(show.out)["checkpoints"][0]["path"].get<std::string>();
  EXPECT_TRUE(json::parse(meta["hnclip.model"]).get<hnclip::ClipConfig>() ==
              hnclip::read_checkpoint_meta(ckpt).model)
      << meta["hnclip.model"];

  // A reader written from the specification sees the checksum the CLI printed.
  double total = 0;
  const auto py = python_view(st, kSafetensorsScript);
  ASSERT_EQ(py.size(), a.size());
  for (const auto& [key, e] : py) total += e.sum;
  const double checksum = j["checksum"].get<double>();
  EXPECT_NEAR(total, checksum, 1e-9 * std::max(1.0, std::abs(checksum)));
}

// The tiny model's word tokenizer (built from its captions) was not in a safetensors export:
// the file could neither start a run nor encode a caption ("give the vocabulary it was trained
// with (--vocab)", a vocabulary no one has). It travels in __metadata__ now, and the file encodes
// exactly as the run's checkpoint; a .pt state dict, which has no place for it, says so.
TEST_F(CliExport, AWordTokenizerTravelsInSafetensorsAndItsAbsenceFromAStateDictIsSaid) {
  const auto st = (out_dir / "word.safetensors").string();
  const auto pt = (out_dir / "word.pt").string();
  ASSERT_EQ(hnclip::test::run_hnclip("export" + run_flag() + common() + " " + st).code, 0);
  const auto show = json::parse(
      hnclip::test::run_hnclip("show " + std::to_string(run_id_) + " --json" + common()).out);
  const auto ckpt = show["checkpoints"][0]["path"].get<std::string>();
  std::map<std::string, std::string> meta;
  hnclip::read_safetensors_file(st, &meta);
  ASSERT_EQ(meta.count("hnclip.tokenizer"), 1u);
  EXPECT_EQ(json::parse(meta["hnclip.tokenizer"]), hnclip::read_checkpoint_meta(ckpt).tokenizer);
  const std::string text = " --text \"three objects on a grey cloth\" --json";
  const auto from_file = hnclip::test::run_hnclip("encode --checkpoint " + st + text);
  ASSERT_EQ(from_file.code, 0) << from_file.err;
  const auto from_run = hnclip::test::run_hnclip("encode --checkpoint " + ckpt + text);
  ASSERT_EQ(from_run.code, 0) << from_run.err;
  EXPECT_EQ(json::parse(from_file.out)["text"], json::parse(from_run.out)["text"]);
  const auto inspected = hnclip::test::run_hnclip("inspect " + st);
  EXPECT_NE(inspected.out.find("tokenizer:   word (96 positions) (__metadata__ hnclip.tokenizer)"),
            std::string::npos)
      << inspected.out;

  const auto state_dict = hnclip::test::run_hnclip("export" + run_flag() + common() + " " + pt);
  ASSERT_EQ(state_dict.code, 0) << state_dict.err;
  EXPECT_NE(state_dict.err.find(pt + " holds the weights only: a .pt state dict has no place for "
                                     "the run's word tokenizer"),
            std::string::npos)
      << state_dict.err;
}

TEST_F(CliExport, EpochAndCheckpointFlagsExportTheSameWeights) {
  const auto by_run = (out_dir / "best.pt").string();
  const auto by_epoch = (out_dir / "epoch1.pt").string();
  const auto by_file = (out_dir / "file.pt").string();
  ASSERT_EQ(hnclip::test::run_hnclip("export" + run_flag() + common() + " " + by_run).code, 0);
  ASSERT_EQ(
      hnclip::test::run_hnclip("export" + run_flag() + " --epoch 1" + common() + " " + by_epoch)
          .code,
      0);
  auto show = hnclip::test::run_hnclip("show " + std::to_string(run_id_) + " --json" + common());
  ASSERT_EQ(show.code, 0) << show.err;
  const auto ckpt = json::parse(show.out)["checkpoints"][0]["path"].get<std::string>();
  auto r = hnclip::test::run_hnclip("export --checkpoint " + ckpt + common() + " " + by_file);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("exported"), std::string::npos) << r.out;

  const auto a = hnclip::read_state_dict_file(by_run);
  // Exactly the checkpoint's weights, as the workbench's own loader reads them.
  auto model = hnclip::make_clip_model(hnclip::read_checkpoint_meta(ckpt).model, 123);
  hnclip::load_checkpoint_weights(ckpt, model);
  const auto params = model->named_parameters();
  ASSERT_EQ(a.size(), params.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].first, params[i].key());
    EXPECT_TRUE(a[i].second.equal(params[i].value())) << a[i].first;
  }
  for (const auto& other : {by_epoch, by_file}) {
    const auto b = hnclip::read_state_dict_file(other);
    ASSERT_EQ(a.size(), b.size()) << other;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].first, b[i].first) << other;
      EXPECT_TRUE(a[i].second.equal(b[i].second)) << other << " " << a[i].first;
    }
  }
}

// Both formats hold every step (as many as `show` counts), every epoch's evaluation (start and
// epoch 1, both directions, R@1..50) and the probes `probes` lists, with the same values.
TEST_F(CliExport, MetricsTablesAgreeWithShowAndProbes) {
  auto show = hnclip::test::run_hnclip("show " + std::to_string(run_id_) + " --json" + common());
  ASSERT_EQ(show.code, 0) << show.err;
  const auto s = json::parse(show.out);
  auto pr = hnclip::test::run_hnclip("probes" + run_flag() + " --json" + common());
  ASSERT_EQ(pr.code, 0) << pr.err;
  const auto probes = json::parse(pr.out)["probes"];
  ASSERT_GT(probes.size(), 0u);

  // (kind, metric) -> count, and the recall of every (epoch, metric) evaluation row.
  struct Seen {
    std::map<std::pair<std::string, std::string>, size_t> count;
    std::map<std::pair<int, std::string>, double> eval;
    std::set<int64_t> probe_steps;
    double max_wall = 0;
  };
  auto check = [&](const Seen& seen) {
    EXPECT_EQ(seen.count.at({"step", "loss"}), s["steps"].get<size_t>());
    EXPECT_EQ(seen.count.at({"step", "grad_norm"}), s["steps"].get<size_t>());
    EXPECT_EQ(seen.count.at({"probe", "grad_ratio"}), probes.size());
    EXPECT_EQ(seen.probe_steps.size(), probes.size());
    EXPECT_TRUE(seen.probe_steps.count(probes[0]["step"].get<int64_t>()));
    ASSERT_EQ(s["evaluations"].size(), 2u);  // start + epoch 1
    for (const auto& e : s["evaluations"]) {
      const int epoch = e["epoch"].get<int>();
      for (const char* dir : {"t2i", "i2t"}) {
        for (const char* k : {"1", "5", "10", "25", "50"}) {
          const auto key = std::make_pair(epoch, std::string("test_") + dir + "_r" + k);
          ASSERT_TRUE(seen.eval.count(key)) << "epoch " << epoch << " " << key.second;
          EXPECT_DOUBLE_EQ(seen.eval.at(key), e[dir][std::string("R@") + k].get<double>());
        }
      }
    }
    EXPECT_GT(seen.max_wall, 0.0);
  };

  const auto csv = (out_dir / "m.csv").string();
  auto r = hnclip::test::run_hnclip("export" + run_flag() + " --metrics " + csv + common());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("metric rows"), std::string::npos) << r.out;
  {
    std::istringstream lines(hnclip::test::read_text_file(csv));
    std::string line;
    ASSERT_TRUE(std::getline(lines, line));
    EXPECT_EQ(line, "kind,run_id,epoch,step,wall_time_s,metric,value");
    Seen seen;
    while (std::getline(lines, line)) {
      std::vector<std::string> f;
      std::stringstream fields(line);
      for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
      if (!line.empty() && line.back() == ',') f.emplace_back();  // empty value = NaN
      ASSERT_EQ(f.size(), 7u) << line;
      EXPECT_EQ(f[1], std::to_string(run_id_));
      ++seen.count[{f[0], f[5]}];
      if (f[0] == "eval") seen.eval[{std::stoi(f[2]), f[5]}] = std::stod(f[6]);
      if (f[0] == "probe") seen.probe_steps.insert(std::stoll(f[3]));
      if (!f[4].empty()) seen.max_wall = std::max(seen.max_wall, std::stod(f[4]));
    }
    check(seen);
  }

  const auto jsonl = (out_dir / "m.jsonl").string();
  r = hnclip::test::run_hnclip("export" + run_flag() + " --metrics " + jsonl + " --json" +
                               common());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto summary = json::parse(r.out);
  EXPECT_EQ(summary["out"], jsonl);
  {
    std::istringstream lines(hnclip::test::read_text_file(jsonl));
    Seen seen;
    size_t n = 0;
    for (std::string line; std::getline(lines, line); ++n) {
      const auto j = json::parse(line);
      EXPECT_EQ(j["run_id"], run_id_);
      const auto kind = j["kind"].get<std::string>(), metric = j["metric"].get<std::string>();
      ++seen.count[{kind, metric}];
      if (kind == "eval") seen.eval[{j["epoch"].get<int>(), metric}] = j["value"].get<double>();
      if (kind == "probe") seen.probe_steps.insert(j["step"].get<int64_t>());
      if (j["wall_time_s"].is_number()) {
        seen.max_wall = std::max(seen.max_wall, j["wall_time_s"].get<double>());
      }
    }
    EXPECT_EQ(n, summary["rows"].get<size_t>());
    check(seen);
  }
}

TEST_F(CliExport, MetricsBadInputIsRefusedAndLeavesNoFile) {
  const auto csv = (out_dir / "m.csv").string();
  expect_one_line_error(hnclip::test::run_hnclip("export --run 999 --metrics " + csv + common()), 2,
                        "hnclip: run 999: no such run in");
  expect_one_line_error(
      hnclip::test::run_hnclip("export" + run_flag() + " --metrics " +
                               (out_dir / "m.txt").string() + common()),
      2, "--metrics");
  expect_one_line_error(
      hnclip::test::run_hnclip("export" + run_flag() + " --metrics " + csv + common() + " " +
                               (out_dir / "w.pt").string()),
      2, "--metrics and out");
  expect_one_line_error(hnclip::test::run_hnclip("export" + run_flag() + common()), 2,
                        "out or --metrics");
  expect_one_line_error(
      hnclip::test::run_hnclip("export" + run_flag() + " --epoch 1 --metrics " + csv + common()),
      2, "--epoch");
  const auto unwritable = (out_dir / "missing-folder" / "m.csv").string();
  expect_one_line_error(
      hnclip::test::run_hnclip("export" + run_flag() + " --metrics " + unwritable + common()), 1,
      unwritable);
  EXPECT_TRUE(fs::is_empty(out_dir.path())) << "no partial or temporary file";
}

TEST_F(CliExport, BadFlagsExitTwoNamingTheFlagAndWriteNothing) {
  const auto out = (out_dir / "never.pt").string();
  expect_one_line_error(hnclip::test::run_hnclip("export --run 999" + common() + " " + out), 2,
                        "hnclip: run 999: no such run in");
  expect_one_line_error(
      hnclip::test::run_hnclip("export" + run_flag() + " --format onnx" + common() + " " + out), 2,
      "--format onnx");
  expect_one_line_error(
      hnclip::test::run_hnclip("export" + run_flag() + " --epoch 7" + common() + " " + out), 2,
      "--epoch 7");
  expect_one_line_error(hnclip::test::run_hnclip("export" + common() + " " + out), 2,
                        "--run or --checkpoint");
  expect_one_line_error(
      hnclip::test::run_hnclip("export --checkpoint " + (out_dir / "nope.pt").string() + common() +
                               " " + out),
      2, "--checkpoint");
  {
    // A run that has not written a checkpoint yet (queued).
    hnclip::RunStore store((dir_->path() / "runs.db").string());
    hnclip::RunRecord queued;
    queued.name = "queued";
    queued.config_json = "{}";
    const auto id = store.create_run(queued);
    expect_one_line_error(
        hnclip::test::run_hnclip("export --run " + std::to_string(id) + common() + " " + out), 2,
        "no checkpoint");
  }
  EXPECT_FALSE(fs::exists(out));
}

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// OUT is replaced when it exists, so a name given by mistake destroyed what was there: `export 1
// runs.db --db runs.db` wrote the weights over the run database itself (exit 0), and a run's
// checkpoint could be overwritten by another's weights. Refused now, everything left as it was;
// an earlier export is still replaced.
TEST_F(CliExport, AFileThatIsNoModelOrARunsCheckpointIsNotReplaced) {
  const auto database = dir_->path() / "runs.db";
  const auto checkpoint = fs::path(hnclip::run_checkpoint_dir(database.string(), run_id_)) /
                          "epoch-1.pt";
  ASSERT_TRUE(fs::exists(checkpoint));
  const auto manifest = out_dir / "data.jsonl";
  std::ofstream(manifest) << "{\"image\": \"a.png\", \"caption\": \"a cat\"}\n";
  const auto database_before = file_bytes(database);
  const auto checkpoint_before = file_bytes(checkpoint);
  const auto export_to = [&](const fs::path& out) {
    return hnclip::test::run_hnclip("export " + std::to_string(run_id_) + " " + out.string() +
                                    common());
  };
  expect_one_line_error(export_to(database), 2,
                        "out " + database.string() + ": exists and is an SQLite database");
  expect_one_line_error(export_to(manifest), 2,
                        "exists and is neither a zip archive nor a safetensors file");
  expect_one_line_error(export_to(checkpoint), 2, "is the checkpoint being exported");
  const auto beside = checkpoint.parent_path() / "copy.safetensors";
  expect_one_line_error(export_to(beside), 2, "a checkpoint folder of the run database");
  expect_one_line_error(
      hnclip::test::run_hnclip("pretrain --epochs 1 --out " + database.string() + common()), 2,
      "--out " + database.string() + ": exists and is an SQLite database");
  EXPECT_EQ(file_bytes(database), database_before) << "the run database was changed";
  EXPECT_EQ(file_bytes(checkpoint), checkpoint_before) << "the run's checkpoint was changed";
  EXPECT_FALSE(fs::exists(beside));
  EXPECT_EQ(file_bytes(manifest).substr(0, 10), "{\"image\": ");
  EXPECT_EQ(hnclip::test::run_hnclip("runs" + common()).code, 0);

  // An earlier export, and an empty file a failed copy left, are replaced.
  const auto earlier = out_dir / "clip.pt";
  std::ofstream(earlier).close();
  ASSERT_EQ(export_to(earlier).code, 0);
  const auto first = file_bytes(earlier);
  EXPECT_FALSE(first.empty());
  const auto again = export_to(earlier);
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(file_bytes(earlier), first);
}

}  // namespace

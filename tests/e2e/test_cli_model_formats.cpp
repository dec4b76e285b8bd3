// End-to-end tests of the model formats as a user meets them: the committed checkpoint exported as
// a Hugging Face CLIPModel folder (`export --format hf`) is what `inspect` says, encodes exactly
// as the checkpoint does and starts a run (`train --init FOLDER`); files that record no
// activation say what they assume, and ones that may hold either kind are refused naming
// --activation; a folder that holds something is never overwritten.

#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/test_dirs.h"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using hnclip::test::expect_one_line_error;
using hnclip::test::run_hnclip;

const std::string kPretrained =
    std::string(HNCLIP_TEST_SOURCE_DIR) + "/../resources/checkpoints/tiny-synthetic-pretrained.pt";
constexpr const char* kCaption = "a small red cube to the left of a large blue sphere";

class CliModelFormats : public ::testing::Test {
 protected:
  void SetUp() override {
    hf_ = (dir_ / "hf").string();
    const auto r = run_hnclip("export --checkpoint " + kPretrained + " --format hf " + hf_ + " --json");
    ASSERT_EQ(r.code, 0) << r.err;
  }
  std::string common() const {
    return " --db " + (dir_ / "runs.db").string() + " --cache-dir " + (dir_ / "cache").string();
  }
  hnclip::test::ScratchDir dir_;
  std::string hf_;
};

TEST_F(CliModelFormats, HuggingFaceExportIsWhatInspectSaysAndEncodesIdentically) {
  EXPECT_TRUE(fs::is_regular_file(fs::path(hf_) / "config.json"));
  EXPECT_TRUE(fs::is_regular_file(fs::path(hf_) / "model.safetensors"));
  EXPECT_TRUE(fs::is_regular_file(fs::path(hf_) / "hnclip_tokenizer.json"));  // a word tokenizer
  const auto pre = json::parse(hnclip::test::read_text_file(fs::path(hf_) / "preprocessor_config.json"));
  EXPECT_EQ(pre.at("crop_size").at("height"), 48);
  EXPECT_NEAR(pre.at("image_mean")[0].get<double>(), 0.48145466, 1e-9);
  const auto config = json::parse(hnclip::test::read_text_file(fs::path(hf_) / "config.json"));
  EXPECT_EQ(config.at("architectures"), json::array({"CLIPModel"}));
  EXPECT_EQ(config.at("text_config").at("hidden_act"), "quick_gelu");

  auto r = run_hnclip("inspect " + hf_ + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto folder = json::parse(r.out);
  r = run_hnclip("inspect pretrained --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto original = json::parse(r.out);
  EXPECT_EQ(folder.at("kind"), "hf-clip");
  EXPECT_EQ(original.at("kind"), "workbench");
  EXPECT_EQ(folder.at("model"), original.at("model"));
  EXPECT_EQ(folder.at("parameters"), original.at("parameters"));
  EXPECT_EQ(folder.at("activation"), "quick_gelu");

  const auto a = run_hnclip("encode --checkpoint pretrained --json --text \"" + std::string(kCaption) + "\"");
  const auto b = run_hnclip("encode --checkpoint " + hf_ + " --json --text \"" + std::string(kCaption) + "\"");
  ASSERT_EQ(a.code, 0) << a.err;
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(json::parse(a.out).at("text"), json::parse(b.out).at("text"));  // bit for bit

  // The weight file alone, with its config beside it, is the same model.
  r = run_hnclip("inspect " + hf_ + "/model.safetensors --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out).at("kind"), "hf-clip");
}

TEST_F(CliModelFormats, AGeluFolderStartsARunWhoseCheckpointsKeepGelu) {
  // The same weights declared as exact GELU (as LAION's models are): the run must keep GELU
  // through training, into its checkpoints and its export.
  auto config = json::parse(hnclip::test::read_text_file(fs::path(hf_) / "config.json"));
  config["text_config"]["hidden_act"] = "gelu";
  config["vision_config"]["hidden_act"] = "gelu";
  hnclip::test::write_text_file(fs::path(hf_) / "config.json", config.dump());
  const auto a = run_hnclip("encode --checkpoint pretrained --json --text \"" + std::string(kCaption) + "\"");
  const auto b = run_hnclip("encode --checkpoint " + hf_ + " --json --text \"" + std::string(kCaption) + "\"");
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_NE(json::parse(a.out).at("text"), json::parse(b.out).at("text"));  // another activation

  const auto r = run_hnclip("train --init " + hf_ +
                            " --benchmark-size small --epochs 1 --batch 32 --threads 1 --json" + common());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto run = json::parse(r.out);
  EXPECT_EQ(run.at("config").at("init"), hf_);
  const auto out = (dir_ / "run_hf").string();
  const auto e = run_hnclip("export --run " + std::to_string(run.at("run_id").get<int64_t>()) +
                            " --format hf " + out + common());
  ASSERT_EQ(e.code, 0) << e.err;
  const auto exported = json::parse(hnclip::test::read_text_file(fs::path(out) / "config.json"));
  EXPECT_EQ(exported.at("text_config").at("hidden_act"), "gelu");
  EXPECT_EQ(exported.at("vision_config").at("hidden_act"), "gelu");
}

TEST_F(CliModelFormats, ActivationContradictingTheConfigIsRefused) {
  const auto r = run_hnclip("encode --checkpoint " + hf_ + " --activation gelu --text a");
  expect_one_line_error(r, 1, "--activation gelu contradicts");
}

TEST_F(CliModelFormats, ExportNeverOverwritesAFolderThatHoldsSomething) {
  const auto before = hnclip::test::read_text_file(fs::path(hf_) / "config.json");
  const auto r = run_hnclip("export --checkpoint " + kPretrained + " --format hf " + hf_);
  expect_one_line_error(r, 1, "not an empty folder");
  EXPECT_EQ(hnclip::test::read_text_file(fs::path(hf_) / "config.json"), before);
  const auto bad = run_hnclip("export --checkpoint " + kPretrained + " --format onnx x");
  expect_one_line_error(bad, 2, "--format onnx");
}

TEST_F(CliModelFormats, InspectNamesWhatIsNotAModel) {
  hnclip::test::write_text_file(dir_ / "notes.txt", "not a model");
  expect_one_line_error(run_hnclip("inspect " + (dir_ / "notes.txt").string()), 1, "notes.txt");
  expect_one_line_error(run_hnclip("inspect " + dir_.path().string()), 1, "neither config.json");
  expect_one_line_error(run_hnclip("inspect " + (dir_ / "none.pt").string()), 1, "none.pt");
}

}  // namespace

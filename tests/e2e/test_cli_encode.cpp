// End-to-end tests of `hnclip encode` on an OpenAI-format state dict made by the independent
// PyTorch reference (tests/core/reference/tiny_clip_reference.py, vocabulary of CLIP's BPE size):
// image features through a PNG the test writes (image_size square, so no resize and PyTorch sees
// the same pixels), text features through the CLIP BPE tokenizer; and usage errors naming the
// flag.

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <random>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "support/cli_runner.h"
#include "support/test_dirs.h"
#include "text/tokenizer.h"

namespace {

using hnclip::test::run_hnclip;
using nlohmann::json;

constexpr int kImageSize = 32;        // the reference model's input side
constexpr int64_t kBpeVocab = 49408;  // CLIP's BPE vocabulary size
constexpr double kRelTol = 1e-4;

std::string vocab_path() { return std::string(HNCLIP_VOCAB_PATH); }

// A deterministic RGB image with structure at every scale.
void write_png(const std::string& path, uint64_t seed) {
  std::mt19937_64 rng(seed);
  cv::Mat img(kImageSize, kImageSize, CV_8UC3);
  for (int y = 0; y < kImageSize; ++y) {
    for (int x = 0; x < kImageSize; ++x) {
      const uint64_t r = rng();
      img.at<cv::Vec3b>(y, x) =
          cv::Vec3b(static_cast<uint8_t>(r), static_cast<uint8_t>((x * 8 + (r >> 8) % 32) % 256),
                    static_cast<uint8_t>((y * 8) % 256));
    }
  }
  ASSERT_TRUE(cv::imwrite(path, img));
}

void expect_close(const json& got, const json& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double err = 0, scale = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i].size(), want[i].size()) << what;
    for (size_t k = 0; k < want[i].size(); ++k) {
      err = std::max(err, std::abs(got[i][k].get<double>() - want[i][k].get<double>()));
      scale = std::max(scale, std::abs(want[i][k].get<double>()));
    }
  }
  EXPECT_GT(scale, 0.0) << what;
  EXPECT_LE(err, kRelTol * scale) << what << ": max abs error " << err << " at scale " << scale;
}

TEST(CliEncode, OpenAiStateDictMatchesPyTorch) {
  hnclip::test::ScratchDir dir;
  const auto png_a = (dir / "a.png").string(), png_b = (dir / "b.png").string();
  write_png(png_a, 1);
  write_png(png_b, 2);
  const std::vector<std::string> texts{"a photo of a cat", "Two dogs, running on the beach!"};
  const auto tokenizer = hnclip::tokenizer_from_json(
      {{"kind", "clip-bpe"}, {"vocab_path", vocab_path()}, {"context_length", 77}});
  std::string token_args;
  for (const auto& t : texts) {
    std::string row;
    for (auto id : tokenizer->encode(t)) row += (row.empty() ? "" : ",") + std::to_string(id);
    token_args += " --tokens " + row;
  }
  std::string out, err;
  const std::string cmd = std::string(HNCLIP_REFERENCE_PYTHON) + " " + HNCLIP_TEST_SOURCE_DIR +
                          "/core/reference/tiny_clip_reference.py " + dir.path().string() +
                          " --vocab-size " + std::to_string(kBpeVocab) + " --image " + png_a +
                          " --image " + png_b + token_args;
  ASSERT_EQ(hnclip::test::run_command(cmd, &out, &err), 0) << "reference script failed: " << err;
  const auto want = json::parse(hnclip::test::read_text_file(dir / "reference.json"));

  const auto r = run_hnclip("encode --checkpoint " + (dir / "clip.pt").string() + " --vocab " +
                            vocab_path() + " --text '" + texts[0] + "' --text '" + texts[1] +
                            "' --image " + png_a + " --image " + png_b + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto got = json::parse(r.out);
  expect_close(got.at("image"), want.at("image"), "image features");
  expect_close(got.at("text"), want.at("text"), "text features");
}

TEST(CliEncode, ImagesAloneNeedNoVocabulary) {
  hnclip::test::ScratchDir dir;
  const auto png = (dir / "a.png").string();
  write_png(png, 3);
  std::string out, err;
  const std::string cmd = std::string(HNCLIP_REFERENCE_PYTHON) + " " + HNCLIP_TEST_SOURCE_DIR +
                          "/core/reference/tiny_clip_reference.py " + dir.path().string() +
                          " --image " + png;
  ASSERT_EQ(hnclip::test::run_command(cmd, &out, &err), 0) << "reference script failed: " << err;
  const auto want = json::parse(hnclip::test::read_text_file(dir / "reference.json"));
  const auto r = run_hnclip("encode --checkpoint " + (dir / "clip.pt").string() + " --image " +
                            png + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto got = json::parse(r.out);
  expect_close(got.at("image"), want.at("image"), "image features");
  EXPECT_TRUE(got.at("text").empty());

  // Text from this file (a 1000-row token embedding, not CLIP's 49408) without --vocab: the shipped
  // vocabulary would give ids it has no row for, so it is refused naming both sizes and --vocab;
  // a --vocab that is not a file is a usage error naming it.
  const auto shipped =
      run_hnclip("encode --checkpoint " + (dir / "clip.pt").string() + " --text cat --json");
  hnclip::test::expect_one_line_error(shipped, 2, "--vocab");
  EXPECT_NE(shipped.err.find("49408 tokens"), std::string::npos) << shipped.err;
  hnclip::test::expect_one_line_error(
      run_hnclip("encode --checkpoint " + (dir / "clip.pt").string() +
                 " --vocab /nonexistent/v.txt.gz --text cat --json"),
      2, "--vocab");
}

TEST(CliEncode, UsageErrorsNameTheFlag) {
  hnclip::test::expect_one_line_error(run_hnclip("encode --json"), 2, "--checkpoint");
  hnclip::test::ScratchDir dir;
  hnclip::test::expect_one_line_error(
      run_hnclip("encode --checkpoint pretrained --image " + (dir / "missing.png").string()), 2,
      "--image");
  // Nothing to encode printed the model's header alone and exited 0.
  hnclip::test::expect_one_line_error(run_hnclip("encode --checkpoint pretrained"), 2,
                                      "--text or --image: nothing to encode");
  // A workbench checkpoint carries its tokenizer: a --vocab beside it (even a missing one) was
  // left unread without a word.
  hnclip::test::expect_one_line_error(
      run_hnclip("encode --checkpoint pretrained --vocab " + (dir / "missing.txt.gz").string() +
                 " --text cat"),
      2, "is a workbench checkpoint, which carries its own tokenizer (--vocab is for a CLIP model");
}

// The committed tiny model has a word vocabulary: a word it lacks becomes the one unknown token,
// which was not said. The feature is still printed; stderr names the words.
TEST(CliEncode, WordsOutsideAWordVocabularyAreNamed) {
  const auto r = run_hnclip(
      "encode --checkpoint pretrained --json --text 'a red circle' --text 'zebra red quokka'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["text"].size(), 2u);
  EXPECT_EQ(r.err.find("--text 1:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hnclip: --text 2: 2 of 3 words are not in the checkpoint's word "
                       "vocabulary and encode as one unknown token (zebra, quokka)"),
            std::string::npos)
      << r.err;
}

TEST(CliEncode, TrainStartsFromAClipStateDictAndEncodesItsCheckpoint) {
  hnclip::test::ScratchDir dir;
  std::string out, err;
  const std::string cmd = std::string(HNCLIP_REFERENCE_PYTHON) + " " + HNCLIP_TEST_SOURCE_DIR +
                          "/core/reference/tiny_clip_reference.py " + dir.path().string() +
                          " --vocab-size " + std::to_string(kBpeVocab) + " --tokens 49406,49407";
  ASSERT_EQ(hnclip::test::run_command(cmd, &out, &err), 0) << "reference script failed: " << err;
  const std::string common =
      " --db " + (dir / "runs.db").string() + " --cache-dir " + (dir / "cache").string();
  const std::string train =
      "train --benchmark-size small --epochs 1 --batch 32 --threads 1 --probe-every 0 --init " +
      (dir / "clip.pt").string();
  // An OpenAI file carries no tokenizer: a --vocab that is not a file is refused before anything
  // runs (without --vocab the shipped one is used, as below with the same file named).
  hnclip::test::expect_one_line_error(run_hnclip(train + " --vocab /nonexistent/v.txt.gz" + common),
                                      2, "--vocab");

  const auto r = run_hnclip(train + " --vocab " + vocab_path() + " --json" + common);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out).at("config").at("vocab"), vocab_path());
  // The run's own checkpoint is a workbench one that remembers the BPE tokenizer and CLIP shape.
  std::string checkpoint;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir / "runs.db.checkpoints")) {
    if (e.path().extension() == ".pt") checkpoint = e.path().string();
  }
  ASSERT_FALSE(checkpoint.empty());
  const auto enc =
      run_hnclip("encode --checkpoint " + checkpoint + " --text 'a red circle' --json");
  ASSERT_EQ(enc.code, 0) << enc.err;
  const auto got = json::parse(enc.out);
  ASSERT_EQ(got.at("text").size(), 1u);
  EXPECT_EQ(got.at("text")[0].size(), 64u);  // the reference model's embedding width

  // --long-clip: the 77-position file stretched to Long-CLIP's 248 positions (20 frozen); the
  // run's checkpoint keeps that shape.
  const auto long_run =
      run_hnclip(train + " --long-clip --vocab " + vocab_path() + " --json" + common);
  ASSERT_EQ(long_run.code, 0) << long_run.err;
  EXPECT_EQ(json::parse(long_run.out).at("config").at("long_clip"), true);
  std::string long_checkpoint;
  for (const auto& e : std::filesystem::directory_iterator(dir / "runs.db.checkpoints" / "run-2")) {
    if (e.path().extension() == ".pt") long_checkpoint = e.path().string();
  }
  ASSERT_FALSE(long_checkpoint.empty());
  const auto described =
      run_hnclip("encode --checkpoint " + long_checkpoint + " --text 'a red circle'");
  ASSERT_EQ(described.code, 0) << described.err;
  EXPECT_NE(described.out.find("context 248"), std::string::npos) << described.out;
  EXPECT_NE(described.out.find("(Long-CLIP)"), std::string::npos) << described.out;
  // A workbench checkpoint cannot be stretched: a usage error naming the flag.
  hnclip::test::expect_one_line_error(
      run_hnclip("train --benchmark-size small --epochs 1 --long-clip --init " + checkpoint +
                 common),
      2, "--long-clip");
}

}  // namespace

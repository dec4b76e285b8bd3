// End-to-end tests of `hnclip tokenize` (issue 4): CLIP's ids for known captions in both output
// forms, truncation to --context keeping the end token, "--" before texts, and usage errors
// exiting 2 with one line naming the flag.

#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/test_dirs.h"

namespace {

using hnclip::test::expect_one_line_error;
using nlohmann::json;
using Result = hnclip::test::CliResult;
using Ids = std::vector<int64_t>;

const std::string kVocab = std::string(HNCLIP_VOCAB_PATH);

Result tokenize(const std::string& args) { return hnclip::test::run_hnclip("tokenize " + args); }

TEST(CliTokenize, JsonHasOneRowPerTextWithStartAndEnd) {
  const auto r = tokenize("--vocab " + kVocab + " --json 'a photo of a cat' 'Hello, world!' ''");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  ASSERT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  const auto j = json::parse(r.out);
  ASSERT_EQ(j.size(), 1u);
  ASSERT_EQ(j["ids"].size(), 3u);
  EXPECT_EQ(j["ids"][0].get<Ids>(), (Ids{49406, 320, 1125, 539, 320, 2368, 49407}));
  EXPECT_EQ(j["ids"][1].get<Ids>(), (Ids{49406, 3306, 267, 1002, 256, 49407}));
  EXPECT_EQ(j["ids"][2].get<Ids>(), (Ids{49406, 49407}));
}

TEST(CliTokenize, PlainOutputIsOneLinePerText) {
  const auto r = tokenize("--vocab " + kVocab + " 'a dog' 'A   DOG'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "49406 320 1929 49407\n49406 320 1929 49407\n");
}

TEST(CliTokenize, ContextTruncatesKeepingTheEndToken) {
  auto r = tokenize("--vocab " + kVocab + " --context 4 --json 'a photo of a cat'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["ids"][0].get<Ids>(), (Ids{49406, 320, 1125, 49407}));
  std::string long_text;
  for (int i = 0; i < 100; ++i) long_text += "cat ";
  r = tokenize("--vocab " + kVocab + " --context 248 --json '" + long_text + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["ids"][0].size(), 102u);  // not cut at 77, no padding
  r = tokenize("--vocab " + kVocab + " --json '" + long_text + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto ids = json::parse(r.out)["ids"][0].get<Ids>();
  ASSERT_EQ(ids.size(), 77u);  // CLIP's default context
  EXPECT_EQ(ids.back(), 49407);
  EXPECT_EQ(ids[75], 2368);
}

TEST(CliTokenize, DoubleDashLetsATextStartWithADash) {
  const auto r = tokenize("--vocab " + kVocab + " -- '-a dog' '- a dog'");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto nl = r.out.find('\n');
  ASSERT_NE(nl, std::string::npos);
  EXPECT_EQ(r.out.substr(0, nl + 1), r.out.substr(nl + 1));
  EXPECT_EQ(std::count(r.out.begin(), r.out.begin() + static_cast<long>(nl), ' '), 4)
      << r.out;  // 5 ids
}

// Without --vocab the vocabulary shipped in resources/ is used: the same ids.
TEST(CliTokenize, ShippedVocabularyIsTheDefault) {
  const auto shipped = tokenize("'a dog'");
  ASSERT_EQ(shipped.code, 0) << shipped.err;
  const auto named = tokenize("--vocab " + kVocab + " 'a dog'");
  ASSERT_EQ(named.code, 0) << named.err;
  EXPECT_EQ(shipped.out, named.out);
  EXPECT_FALSE(shipped.out.empty());
}

// --compare-cleaning counts the captions the ftfy-like fixes change the tokens of, and which fix
// changed what; a .jsonl file's captions come from "description" (DOCCI) or "caption".
TEST(CliTokenize, CompareCleaningCountsCaptionsWhoseTokensChange) {
  hnclip::test::ScratchDir dir;
  hnclip::test::write_text_file(
      dir / "captions.txt",
      "A red circle on a grey background.\nThe dog\u2019s ball is \ufb01ne.\n\nIt\u2019s a "
      "\u201cbig\u201d cat.\n\uff21 plain\n");
  auto r = tokenize("--json --compare-cleaning " + (dir / "captions.txt").string());
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["captions"], 4);
  EXPECT_EQ(j["differ"], 3);
  EXPECT_EQ(j["differ_in_context"], 3);
  EXPECT_EQ(j["context"], 77);
  EXPECT_EQ(j["changed_by"]["curly_quotes"], 2);
  EXPECT_EQ(j["changed_by"]["ligatures"], 1);
  EXPECT_EQ(j["changed_by"]["width_forms"], 1);
  EXPECT_EQ(j["changed_by"]["nfc"], 0);
  r = tokenize("--compare-cleaning " + (dir / "captions.txt").string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("3 of 4 captions tokenize differently with ftfy-like cleaning (3 within "
                       "the first 77 tokens)"),
            std::string::npos)
      << r.out;

  hnclip::test::write_text_file(dir / "docci.jsonl",
                                "{\"description\": \"A cat\u2019s tail.\"}\n"
                                "{\"caption\": \"A plain caption.\"}\n");
  r = tokenize("--json --compare-cleaning " + (dir / "docci.jsonl").string());
  ASSERT_EQ(r.code, 0) << r.err;
  j = json::parse(r.out);
  EXPECT_EQ(j["captions"], 2);
  EXPECT_EQ(j["differ"], 1);

  hnclip::test::write_text_file(dir / "bad.jsonl", "{\"description\": \"ok\"}\n{\"text\": 1}\n");
  expect_one_line_error(tokenize("--compare-cleaning " + (dir / "bad.jsonl").string()), 2,
                        "line 2");
  expect_one_line_error(tokenize("--compare-cleaning /nonexistent/c.txt"), 2, "/nonexistent/c.txt");
  expect_one_line_error(tokenize("--compare-cleaning " + (dir / "docci.jsonl").string() + " 'a'"),
                        2, "--compare-cleaning");
}

TEST(CliTokenize, UsageErrorsNameTheFlag) {
  expect_one_line_error(tokenize("--vocab /nonexistent/bpe.txt.gz 'a dog'"), 2,
                        "/nonexistent/bpe.txt.gz");
  expect_one_line_error(tokenize("--vocab /nonexistent/bpe.txt.gz 'a dog'"), 2, "--vocab");
  expect_one_line_error(tokenize("--vocab " + kVocab + " --context 1 'a dog'"), 2, "--context");
  expect_one_line_error(tokenize("--vocab " + kVocab + " --context x 'a dog'"), 2, "--context");
  expect_one_line_error(tokenize("--vocab " + kVocab), 2, "text");
  hnclip::test::ScratchDir dir;
  hnclip::test::write_text_file(dir / "plain.txt", "#version: 0.2\na b\n");
  expect_one_line_error(tokenize("--vocab " + (dir / "plain.txt").string() + " 'a dog'"), 2,
                        "gzip");
}

}  // namespace

// Tests core/text/hf_clip_tokenizer_files: files written from CLIP's vocabulary pass the check;
// any change (an id, a symbol, a merge, a cut-off file) is refused naming the file and the key or
// line.

#include "text/hf_clip_tokenizer_files.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_dirs.h"

namespace hnclip {
namespace {

std::string error_of(const test::ScratchDir& dir, const ClipBpeTokenizer& clip) {
  try {
    check_hf_clip_tokenizer_files((dir / "vocab.json").string(), (dir / "merges.txt").string(), clip);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(HfClipTokenizerFiles, WrittenFilesAreClipsAndEveryChangeIsRefused) {
  const ClipBpeTokenizer clip(HNCLIP_VOCAB_PATH, 77);
  test::ScratchDir dir;
  write_hf_clip_tokenizer_files(dir.path().string(), clip);
  EXPECT_EQ(error_of(dir, clip), "(no error)");
  const auto config = nlohmann::json::parse(test::read_text_file(dir / "tokenizer_config.json"));
  EXPECT_EQ(config.at("model_max_length"), 77);
  const auto vocab_text = test::read_text_file(dir / "vocab.json");
  const auto merges_text = test::read_text_file(dir / "merges.txt");
  auto vocab = nlohmann::json::parse(vocab_text);
  EXPECT_EQ(vocab.size(), 49408u);
  EXPECT_EQ(vocab.at("<|endoftext|>"), 49407);
  EXPECT_EQ(merges_text.substr(0, 14), "#version: 0.2\n");

  // Two ids swapped.
  vocab["a</w>"].swap(vocab["b</w>"]);
  test::write_text_file(dir / "vocab.json", vocab.dump());
  auto msg = error_of(dir, clip);
  EXPECT_NE(msg.find("vocab.json: key 'a</w>'"), std::string::npos) << msg;

  // A merge changed on line 5 (merge 4).
  test::write_text_file(dir / "vocab.json", vocab_text);
  std::string merges = merges_text;
  size_t pos = 0;
  for (int line = 1; line < 5; ++line) pos = merges.find('\n', pos) + 1;
  merges.insert(pos, "x");
  test::write_text_file(dir / "merges.txt", merges);
  msg = error_of(dir, clip);
  EXPECT_NE(msg.find("merges.txt: line 5"), std::string::npos) << msg;

  // Cut off half way, at a line end.
  test::write_text_file(dir / "merges.txt",
                        merges_text.substr(0, merges_text.rfind('\n', merges_text.size() / 2) + 1));
  msg = error_of(dir, clip);
  EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;

  // Lines after the merges CLIP uses are ignored, as CLIPTokenizer ignores them.
  test::write_text_file(dir / "merges.txt", merges_text + "q z\n");
  EXPECT_EQ(error_of(dir, clip), "(no error)");

  test::write_text_file(dir / "vocab.json", "{not json");
  msg = error_of(dir, clip);
  EXPECT_NE(msg.find("vocab.json: not JSON"), std::string::npos) << msg;
}

}  // namespace
}  // namespace hnclip

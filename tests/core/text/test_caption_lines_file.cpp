// read_caption_lines: plain one-caption-a-line files, DOCCI / manifest JSON lines, and errors that
// name the file, the line and the key.

#include "text/caption_lines_file.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "support/test_dirs.h"

namespace hnclip {
namespace {

using Captions = std::vector<std::string>;

std::string error_of(const std::string& path) {
  try {
    read_caption_lines(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(CaptionLinesFile, PlainFileIsOneCaptionPerNonEmptyLine) {
  test::ScratchDir dir;
  test::write_text_file(dir / "c.txt", "first caption\r\n\nsecond \u2019 one\nlast without newline");
  EXPECT_EQ(read_caption_lines((dir / "c.txt").string()),
            (Captions{"first caption", "second \u2019 one", "last without newline"}));
}

TEST(CaptionLinesFile, JsonLinesTakeDescriptionOrCaption) {
  test::ScratchDir dir;
  test::write_text_file(dir / "d.jsonlines",
                        "{\"example_id\": \"x\", \"description\": \"A \\u2018dog\\u2019.\"}\n\n"
                        "{\"image\": \"a.png\", \"caption\": \"a cat\"}\n"
                        "{\"image\": \"b.png\", \"captions\": [\"one\", \"two\"]}\n");
  EXPECT_EQ(read_caption_lines((dir / "d.jsonlines").string()),
            (Captions{"A \u2018dog\u2019.", "a cat", "one", "two"}));
}

TEST(CaptionLinesFile, ErrorsNameFileLineAndKey) {
  test::ScratchDir dir;
  const auto missing = (dir / "missing.txt").string();
  EXPECT_NE(error_of(missing).find(missing), std::string::npos) << error_of(missing);
  test::write_text_file(dir / "a.jsonl", "{\"caption\": \"ok\"}\nnot json\n");
  const auto a = error_of((dir / "a.jsonl").string());
  EXPECT_NE(a.find("a.jsonl: line 2: not JSON"), std::string::npos) << a;
  test::write_text_file(dir / "b.jsonl", "[1]\n");
  EXPECT_NE(error_of((dir / "b.jsonl").string()).find("line 1: expected a JSON object"),
            std::string::npos);
  test::write_text_file(dir / "c.jsonl", "{\"caption\": 3}\n");
  const auto c = error_of((dir / "c.jsonl").string());
  EXPECT_NE(c.find("line 1: key \"description\", \"caption\" or \"captions\""), std::string::npos)
      << c;
  test::write_text_file(dir / "d.jsonl", "{\"captions\": [\"a\", 2]}\n");
  const auto d = error_of((dir / "d.jsonl").string());
  EXPECT_NE(d.find("line 1: key \"captions\" must hold strings"), std::string::npos) << d;
  // A number too large for a double is nlohmann's out_of_range, not a parse_error: still refused
  // with the line, never escaping as an exception the caller does not expect.
  test::write_text_file(dir / "e.jsonl",
                        "{\"caption\": \"ok\"}\n{\"caption\": \"x\", \"n\": 1e999}\n");
  const auto e = error_of((dir / "e.jsonl").string());
  EXPECT_NE(e.find("e.jsonl: line 2: not JSON"), std::string::npos) << e;
}

}  // namespace
}  // namespace hnclip

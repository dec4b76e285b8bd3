// StructureWordList: the shipped default list against the built-in benchmark's words, the file
// format (comments, blank lines, BOM, CRLF), errors naming file and line, and the removal rule
// (whole words, case, phrases, punctuation, sentence separators).

#include "text/structure_word_list.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "support/test_dirs.h"
#include "text/caption_sentences.h"

namespace hnclip {
namespace {

// tests/support/test_dirs.h has no resource-dir constant; resources/ sits beside tests/, as
// tests/e2e/test_cli_model_formats.cpp finds the shipped checkpoint.
const std::string kShippedList =
    std::string(HNCLIP_TEST_SOURCE_DIR) + "/../resources/structxlip_words.txt";

// The built-in benchmark's colour, texture and background names, copied from
// core/data/synthetic_scene.cpp's scene_name() (this test links hnclip_text only, not data/).
const std::vector<std::string> kBenchmarkColours = {"red",  "orange", "yellow", "green",
                                                    "cyan", "blue",   "purple", "brown"};
const std::vector<std::string> kBenchmarkTextures = {"solid", "hollow"};
const std::vector<std::string> kBenchmarkBackgrounds = {"black", "grey", "white"};

std::string error_of(const std::filesystem::path& path) {
  try {
    read_structure_word_list(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

StructureWordList list_of(const std::vector<std::string>& entries) {
  return StructureWordList(entries);
}

TEST(StructureWordList, ShippedListHoldsTheBenchmarksWords) {
  const auto words = read_structure_word_list(kShippedList);
  for (const auto* group : {&kBenchmarkColours, &kBenchmarkTextures, &kBenchmarkBackgrounds}) {
    for (const auto& w : *group) EXPECT_TRUE(words.contains(w)) << w;
  }
  EXPECT_TRUE(words.contains("gray"));  // the other spelling of the benchmark's "grey"
  EXPECT_GT(words.size(), 100u);        // colours, materials and textures beyond the benchmark's
}

TEST(StructureWordList, ShippedListClearsBenchmarkCaptionsButKeepsTheirStructure) {
  const auto words = read_structure_word_list(kShippedList);
  // Caption shapes of core/data/synthetic_caption.cpp: sizes, shapes, positions and counts stay.
  EXPECT_EQ(remove_structure_words(
                "In the top left corner there is a large red circle that is solid and filled. "
                "In the very centre there is a small cyan cross that is hollow, only outlined. "
                "The background is plain grey.",
                words),
            "In the top left corner there is a large circle that is. "
            "In the very centre there is a small cross that is. The background is plain.");
  EXPECT_EQ(remove_structure_words("This image shows three objects on a white background: one "
                                   "square and two triangles.",
                                   words),
            "This image shows three objects on a background: one square and two triangles.");
}

TEST(StructureWordList, CommentsBlankLinesAndSpacingAreSkipped) {
  test::ScratchDir dir;
  test::write_text_file(dir / "w.txt",
                        "# what the list is for\n\n   \nred   # a colour\r\n\tLight   Blue \r\n"
                        "#only a comment\nRED\nlast without newline");
  EXPECT_EQ(read_structure_word_list(dir / "w.txt").entries(),
            (std::vector<std::string>{"red", "light blue", "last without newline"}));
}

TEST(StructureWordList, MatchingIgnoresCase) {
  const auto words = list_of({"Red", "OFF-WHITE", "navy’s"});
  EXPECT_TRUE(words.contains("rED"));
  EXPECT_EQ(remove_structure_words("RED circle and red square and rEd", words),
            "circle and square and");
  EXPECT_EQ(remove_structure_words("an Off-White wall", words), "an wall");
  // The typeset apostrophe and the ASCII one are the same letter to the list.
  EXPECT_EQ(remove_structure_words("the navy's hull", words), "the hull");
}

TEST(StructureWordList, OnlyWholeWordsAreRemoved) {
  const auto words = list_of({"red"});
  EXPECT_EQ(remove_structure_words("a redwood, a bored cat, reds, red-brown and re d", words),
            "a redwood, a bored cat, reds, red-brown and re d");
  EXPECT_EQ(remove_structure_words("a (red) kite, 'red' paint, red's hue", words),
            "a () kite, '' paint, red's hue");
}

TEST(StructureWordList, LongestPhraseWins) {
  const auto words = list_of({"black", "black and white", "light blue"});
  EXPECT_EQ(remove_structure_words("a black and white photo of a light  blue car", words),
            "a photo of a car");
  EXPECT_EQ(remove_structure_words("a black and grey cat", words), "a and grey cat");
  // Punctuation between the words is not white space: not the phrase.
  EXPECT_EQ(remove_structure_words("light, blue sky", words), "light, blue sky");
}

TEST(StructureWordList, PunctuationStaysAttachedWithoutOrphans) {
  const auto words = list_of({"red", "hollow", "grey"});
  EXPECT_EQ(remove_structure_words("A large red circle, hollow.", words), "A large circle.");
  EXPECT_EQ(remove_structure_words("Red, a circle", words), "a circle");
  EXPECT_EQ(remove_structure_words("a circle, red", words), "a circle");
  EXPECT_EQ(remove_structure_words("a circle, red; grey!", words), "a circle!");
  EXPECT_EQ(remove_structure_words("a circle,red square", words), "a circle, square");
  EXPECT_EQ(remove_structure_words("  keep  spacing  red here ", words), "  keep  spacing  here ");
}

TEST(StructureWordList, SentenceSeparatorsSurvive) {
  const auto words = list_of({"red", "blue", "grey"});
  const auto out =
      remove_structure_words("The car is red. The sky is blue. Grey. The end. Red, a kite.", words);
  EXPECT_EQ(out, "The car is. The sky is. The end. a kite.");
  EXPECT_EQ(caption_sentences(out),
            (std::vector<std::string>{"The car is", "The sky is", "The end", "a kite."}));
  EXPECT_EQ(remove_structure_words("Red. A circle.", words), "A circle.");
}

TEST(StructureWordList, CaptionBytesThatAreNotUtf8PassThrough) {
  const auto words = list_of({"red"});
  EXPECT_EQ(remove_structure_words("red \xff circle \xc3", words), "\xff circle \xc3");
  EXPECT_EQ(remove_structure_words("caf\xc3\xa9 red", words), "caf\xc3\xa9");
}

TEST(StructureWordList, NotUtf8LineNamesFileAndLine) {
  test::ScratchDir dir;
  const auto path = dir / "w.txt";
  test::write_text_file(path, "red\n# blue\ngre\xffy\n");
  const auto e = error_of(path);
  EXPECT_NE(e.find(path.string() + ":3: not UTF-8 (byte 0xff at column 4)"), std::string::npos)
      << e;
  // Inside a comment too: the file as a whole is not UTF-8.
  test::write_text_file(path, "red # \xc0\xaf overlong\n");
  const auto c = error_of(path);
  EXPECT_NE(c.find(path.string() + ":1: not UTF-8 (byte 0xc0 at column 7)"), std::string::npos)
      << c;
}

TEST(StructureWordList, MissingFileIsNamed) {
  test::ScratchDir dir;
  const auto missing = dir / "missing.txt";
  const auto e = error_of(missing);
  EXPECT_NE(e.find(missing.string() + ": cannot read the structure word list: no such file"),
            std::string::npos)
      << e;
  const auto d = error_of(dir.path());  // a folder is no list either
  EXPECT_NE(d.find(dir.path().string() + ": cannot read"), std::string::npos) << d;
}

TEST(StructureWordList, EmptyListIsRefused) {
  test::ScratchDir dir;
  test::write_text_file(dir / "comments.txt", "# nothing but\n\n   # comments\n");
  const auto e = error_of(dir / "comments.txt");
  EXPECT_NE(e.find((dir / "comments.txt").string() + ": no entries"), std::string::npos) << e;
  test::write_text_file(dir / "zero.txt", "");
  EXPECT_NE(error_of(dir / "zero.txt").find("zero.txt: no entries"), std::string::npos);
}

TEST(StructureWordList, ByteOrderMarkIsAccepted) {
  test::ScratchDir dir;
  test::write_text_file(dir / "bom.txt", "\xEF\xBB\xBFred\nblue\n");
  const auto words = read_structure_word_list(dir / "bom.txt");
  EXPECT_EQ(words.entries(), (std::vector<std::string>{"red", "blue"}));
  // Only at the very start: elsewhere U+FEFF is a character an entry cannot hold.
  test::write_text_file(dir / "late.txt",
                        "red\n\xEF\xBB\xBF"
                        "blue\n");
  const auto e = error_of(dir / "late.txt");
  EXPECT_NE(e.find("late.txt:2: \"\xEF\xBB\xBF"
                   "blue\": U+FEFF at column 1"),
            std::string::npos)
      << e;
}

TEST(StructureWordList, PunctuationInAnEntryIsRefused) {
  test::ScratchDir dir;
  const auto path = dir / "w.txt";
  test::write_text_file(path, "red\n  red, blue  # two meant\n");
  const auto e = error_of(path);
  EXPECT_NE(e.find(path.string() + ":2: \"red, blue\": ',' at column 6: an entry holds only "
                                   "letters, digits, hyphens, apostrophes and spaces"),
            std::string::npos)
      << e;
  test::write_text_file(path, "red\ngreen\n-blue\n");
  const auto h = error_of(path);
  EXPECT_NE(
      h.find(path.string() + ":3: \"-blue\": '-' at column 1 must join two letters or digits"),
      std::string::npos)
      << h;
  EXPECT_THROW(list_of({"red/blue"}), std::invalid_argument);
  EXPECT_THROW(list_of({"   "}), std::invalid_argument);
  EXPECT_NO_THROW(list_of({"off-white", "navy's", "2-tone", "türkis"}));
}

}  // namespace
}  // namespace hnclip

#include "text/word_tokenizer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace hnclip {
namespace {

using Ids = std::vector<int64_t>;

// Expects f() to throw E whose message contains `needle`.
template <typename E, typename F>
void expect_throw_containing(F f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected an exception mentioning " << needle;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(WordTokenizer, WordsLowerCasesAndDropsPunctuation) {
  EXPECT_EQ(WordTokenizer::words("A Red, red-circle!  x2 ...9"),
            (std::vector<std::string>{"a", "red", "red", "circle", "x2", "9"}));
  EXPECT_TRUE(WordTokenizer::words("").empty());
  EXPECT_TRUE(WordTokenizer::words(" ,.;!? -- ").empty());
}

TEST(WordTokenizer, IdLayoutPutsEndLast) {
  const WordTokenizer tok({"red", "circle"}, 6);
  EXPECT_EQ(tok.vocab_size(), 6);
  EXPECT_EQ(tok.start_id(), 4);
  EXPECT_EQ(tok.end_id(), 5);
  EXPECT_EQ(tok.kind(), "word");
  EXPECT_EQ(tok.encode("Red circle."), (Ids{4, 2, 3, 5, 0, 0}));
}

TEST(WordTokenizer, EmptyAndPunctuationOnlyText) {
  const WordTokenizer tok({"red"}, 4);
  EXPECT_EQ(tok.encode(""), (Ids{3, 4, 0, 0}));
  EXPECT_EQ(tok.encode("?!, ..."), (Ids{3, 4, 0, 0}));
}

TEST(WordTokenizer, UnknownWordsMapToOne) {
  const WordTokenizer tok({"red"}, 5);
  EXPECT_EQ(tok.encode("red banana RED"), (Ids{3, 2, 1, 2, 4}));
}

TEST(WordTokenizer, UnknownWordsAreListedInOrderWithRepeats) {
  const WordTokenizer tok({"red", "circle"}, 5);
  EXPECT_EQ(tok.unknown_words("Banana red KIWI circle banana!"),
            (std::vector<std::string>{"banana", "kiwi", "banana"}));
  EXPECT_TRUE(tok.unknown_words("a").size() == 1);
  EXPECT_TRUE(tok.unknown_words("Red, circle.").empty());
  EXPECT_TRUE(tok.unknown_words("").empty());
}

TEST(WordTokenizer, ExactFitAndTruncationKeepEnd) {
  const WordTokenizer tok({"a", "b", "c"}, 5);
  EXPECT_EQ(tok.encode("a b c"), (Ids{5, 2, 3, 4, 6}));      // exactly fits
  EXPECT_EQ(tok.encode("a b c a b"), (Ids{5, 2, 3, 4, 6}));  // truncated, still ends with end
  for (const auto& ids : {tok.encode("c c c c c c c c"), tok.encode("")}) {
    EXPECT_EQ(static_cast<int64_t>(ids.size()), tok.context_length());
  }
}

TEST(WordTokenizer, RejectsTooShortContextAndBadVocab) {
  EXPECT_THROW(WordTokenizer({"a"}, 2), std::invalid_argument);
  EXPECT_NO_THROW(WordTokenizer({"a"}, 3));
  EXPECT_THROW(WordTokenizer({"a", "a"}, 8), std::invalid_argument);
  EXPECT_THROW(WordTokenizer({"Red"}, 8), std::invalid_argument);
  EXPECT_THROW(WordTokenizer({"two words"}, 8), std::invalid_argument);
  EXPECT_THROW(WordTokenizer({""}, 8), std::invalid_argument);
  EXPECT_THROW(WordTokenizer::build({"a"}, 1), std::invalid_argument);
}

TEST(WordTokenizer, BuildOrdersByCountThenAlphabetically) {
  const std::vector<std::string> captions = {"b a c", "c b", "c d", "zz"};
  const auto tok = WordTokenizer::build(captions, 8);
  EXPECT_EQ(tok.vocab(), (std::vector<std::string>{"c", "b", "a", "d", "zz"}));
  // Deterministic regardless of caption order.
  const auto tok2 = WordTokenizer::build({"zz", "c d", "c b", "b a c"}, 8);
  EXPECT_EQ(tok2.vocab(), tok.vocab());
  // min_count drops rare words.
  EXPECT_EQ(WordTokenizer::build(captions, 8, 2).vocab(), (std::vector<std::string>{"c", "b"}));
}

TEST(WordTokenizer, JsonRoundTrip) {
  const auto tok = WordTokenizer::build({"a large red circle", "a small blue square"}, 12);
  const auto j = tok.to_json();
  EXPECT_EQ(j.at("kind"), "word");
  EXPECT_EQ(j.at("context_length"), 12);
  const auto back = tokenizer_from_json(j);
  EXPECT_EQ(back->kind(), "word");
  EXPECT_EQ(back->vocab_size(), tok.vocab_size());
  EXPECT_EQ(back->context_length(), 12);
  EXPECT_EQ(back->to_json(), j);
  EXPECT_EQ(back->encode("a red square, a green one"), tok.encode("a red square, a green one"));
}

TEST(WordTokenizer, BadJsonNamesTheKey) {
  const auto good = WordTokenizer({"a"}, 5).to_json();
  auto no_vocab = good;
  no_vocab.erase("vocab");
  expect_throw_containing<std::runtime_error>([&] { tokenizer_from_json(no_vocab); }, "\"vocab\"");
  auto bad_ctx = good;
  bad_ctx["context_length"] = "five";
  expect_throw_containing<std::runtime_error>([&] { tokenizer_from_json(bad_ctx); },
                                              "\"context_length\"");
  auto short_ctx = good;
  short_ctx["context_length"] = 2;
  expect_throw_containing<std::runtime_error>([&] { tokenizer_from_json(short_ctx); },
                                              "context_length");
  auto bad_entry = good;
  bad_entry["vocab"] = nlohmann::json::array({"a", 7});
  expect_throw_containing<std::runtime_error>([&] { tokenizer_from_json(bad_entry); },
                                              "\"vocab\" entry 1");
  auto no_kind = good;
  no_kind.erase("kind");
  expect_throw_containing<std::runtime_error>([&] { tokenizer_from_json(no_kind); }, "\"kind\"");
  auto other_kind = good;
  other_kind["kind"] = "sentencepiece";
  expect_throw_containing<std::runtime_error>([&] { tokenizer_from_json(other_kind); },
                                              "sentencepiece");
}

}  // namespace
}  // namespace hnclip

// Tests core/text/sentence_token_span: for the word tokenizer and CLIP's BPE, the span's ids in
// the caption's row are exactly the sentence's own ids, for every sentence of real-looking dense
// captions (punctuation, numbers, apostrophes); sentences cut by the context keep what fits; an
// index out of range throws.

#include "text/sentence_token_span.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "text/caption_sentences.h"
#include "text/clip_bpe_tokenizer.h"
#include "text/word_tokenizer.h"

namespace hnclip {
namespace {

const std::vector<std::string> kCaptions = {
    "Three shapes on a grey background. A large red circle, solid, at the top left. A small blue "
    "square at the centre. A hollow green cross at the bottom right. The background is grey.",
    "A man's bicycle leans on a wall. It's 2.5 m long, with 26-inch wheels. Nothing else.",
    "One sentence only",
    "Dots. . and a skipped empty piece. The end."};

std::vector<int64_t> content(const Tokenizer& t, const std::string& text) {
  auto ids = t.encode(text);
  const auto end = std::find(ids.begin(), ids.end(), t.end_id());
  return {ids.begin() + 1, end};
}

void expect_spans_match(const Tokenizer& t) {
  for (const auto& caption : kCaptions) {
    SCOPED_TRACE(caption);
    const auto row = t.encode(caption);
    const auto sentences = caption_sentences(caption);
    int64_t previous_end = 1;
    for (size_t k = 0; k < sentences.size(); ++k) {
      const auto span = sentence_token_span(t, caption, static_cast<int64_t>(k));
      EXPECT_EQ(std::vector<int64_t>(row.begin() + span.begin, row.begin() + span.end),
                content(t, sentences[k]))
          << "sentence " << k;
      EXPECT_GE(span.begin, previous_end);  // in order, never overlapping
      previous_end = span.end;
    }
  }
}

TEST(SentenceTokenSpan, WordTokenizerSpansHoldTheSentencesTokens) {
  expect_spans_match(WordTokenizer::build(kCaptions, 96));
}

TEST(SentenceTokenSpan, ClipBpeSpansHoldTheSentencesTokens) {
  expect_spans_match(ClipBpeTokenizer(HNCLIP_VOCAB_PATH, 248));
}

TEST(SentenceTokenSpan, ContextCutsTheSpan) {
  // Context 12: start + 10 content + end. The word tokenizer keeps words only, so sentence 1 of
  // the first caption starts right after the summary's 6 words (position 7) and is cut before
  // the end token's place, 11.
  const auto t = WordTokenizer::build(kCaptions, 12);
  const auto first = sentence_token_span(t, kCaptions[0], 0);
  EXPECT_EQ(first.begin, 1);
  const auto cut = sentence_token_span(t, kCaptions[0], 1);
  EXPECT_EQ(first.end, 7);
  EXPECT_EQ(cut.begin, 7);
  EXPECT_EQ(cut.end, 11);
  const auto gone = sentence_token_span(t, kCaptions[0], 3);
  EXPECT_EQ(gone.begin, gone.end);  // wholly past the context
  EXPECT_THROW(sentence_token_span(t, kCaptions[0], 5), std::out_of_range);
  EXPECT_THROW(sentence_token_span(t, kCaptions[0], -1), std::out_of_range);
}

}  // namespace
}  // namespace hnclip

#pragma once
// Where one sentence of a caption sits in the caption's token row: GOAL's text term pools the
// text tower's hidden states over exactly those positions and matches them to the sentence
// encoded on its own. The span is found by counting the tokens of the text before the sentence
// (the start token comes first), which equals the caption's own tokenization at the sentence's
// positions because both tokenizers split at white space and punctuation before anything else
// (tests/core/text/test_sentence_token_span.cpp checks it for both on real captions).
// Threading: a free function; the tokenizer's encode() is const.

#include <cstdint>
#include <string>

#include "text/tokenizer.h"

namespace hnclip {

struct TokenSpan {
  int64_t begin = 0;  // first position of the sentence's tokens in encode(caption)
  int64_t end = 0;    // one past the last; begin == end: truncated away by the context length
};

// The span of sentence `sentence` (0-based, text/caption_sentences.h) of `caption`. A sentence
// cut by the context length keeps the positions that fit (before the end token). Throws
// std::out_of_range for a sentence index the caption does not have.
TokenSpan sentence_token_span(const Tokenizer& tokenizer, const std::string& caption,
                              int64_t sentence);

}  // namespace hnclip

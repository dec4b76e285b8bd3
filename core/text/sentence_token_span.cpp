#include "text/sentence_token_span.h"

#include <algorithm>
#include <stdexcept>

#include "text/caption_sentences.h"

namespace hnclip {

namespace {

// Tokens of `text` between its start and end tokens (at most context - 2: encode() truncates).
int64_t content_tokens(const Tokenizer& tokenizer, const std::string& text) {
  const auto ids = tokenizer.encode(text);
  const auto end = std::find(ids.begin(), ids.end(), tokenizer.end_id());
  return static_cast<int64_t>(end - ids.begin()) - 1;
}

}  // namespace

TokenSpan sentence_token_span(const Tokenizer& tokenizer, const std::string& caption,
                              int64_t sentence) {
  const auto ranges = caption_sentence_ranges(caption);
  if (sentence < 0 || sentence >= static_cast<int64_t>(ranges.size())) {
    throw std::out_of_range("sentence_token_span: sentence " + std::to_string(sentence) +
                            " of a caption with " + std::to_string(ranges.size()) +
                            " sentence(s)");
  }
  const auto [start, end] = ranges[static_cast<size_t>(sentence)];
  const int64_t last = tokenizer.context_length() - 1;  // the end token's place when full
  const int64_t begin =
      std::min(last, 1 + (start == 0 ? 0 : content_tokens(tokenizer, caption.substr(0, start))));
  const int64_t length = content_tokens(tokenizer, caption.substr(start, end - start));
  return {begin, std::min(last, begin + length)};
}

}  // namespace hnclip

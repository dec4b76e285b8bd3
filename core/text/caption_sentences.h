#pragma once
// A dense caption's sentences, split the way the frameworks read them: Long-CLIP's short caption
// is the text before the first ". ", DeBias-CLIP samples the sentences after the first, GOAL's
// segments each name one sentence. One rule for all of them, so a sentence index means the same
// sentence to the data readers (core/data) and the trainer (core/train).

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace hnclip {

// Where each sentence lies in the caption: [first byte, one past the last) per sentence, in
// order, by the rule below (what caption_sentences cuts out).
std::vector<std::pair<size_t, size_t>> caption_sentence_ranges(const std::string& caption);

// The caption's sentences, split at each ". " (the separator dropped, a final "." kept); empty
// pieces (". . ") are skipped.
std::vector<std::string> caption_sentences(const std::string& caption);

}  // namespace hnclip

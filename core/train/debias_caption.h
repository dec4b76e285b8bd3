#pragma once
// DeBias-CLIP's augmented caption. CLIP's text encoder leans on a caption's first tokens (its
// summary sentence, early positions); DeBias-CLIP trains each image also against a caption that
// lacks that summary, keeps a random subset of the other sentences, and starts them later in the
// token sequence (padding before them), so detail and late positions carry the match.
//
// Choices (no reference code was available here; the paper's description is followed):
// - sentences are split at ". ", the rule Long-CLIP's short caption uses;
// - max(1, round(keep_ratio · n)) of the n non-summary sentences are kept, chosen uniformly, in
//   their order; default keep_ratio 0.5 (half the detail each step: a different subset every
//   step, and still several sentences of the built-in benchmark's captions);
// - a one-sentence caption has no detail to keep and stays whole;
// - the padding is the tokenizer's padding id (0) inserted after the start token; by default as
//   many as the caption lost, so the augmented caption's end token lands where the full one's
//   does (its kept sentences occupy the late positions the full caption reaches).

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "text/caption_sentences.h"

namespace hnclip {

// The augmented caption's text: the summary sentence dropped, a random subset of the others kept
// (as above), joined by ". ". Throws std::invalid_argument for keep_ratio outside (0, 1].
std::string debias_caption_text(const std::string& caption, double keep_ratio,
                                std::mt19937_64& rng);

// Tokens up to and including the end token, per row of token ids [N, L] (the end token is the
// row's largest id, OpenAI CLIP's rule).
std::vector<int64_t> token_lengths(const at::Tensor& tokens);

// Token ids [N, L] with each row's content moved pad[i] places later: the start token stays
// first, pad[i] padding ids (0) follow, then the row's tokens; the end token is kept, so content
// that would run past L is cut before it. Returns a new tensor; throws std::invalid_argument
// when pad has not N non-negative entries.
at::Tensor prepend_padding(const at::Tensor& tokens, const std::vector<int64_t>& pad);

}  // namespace hnclip

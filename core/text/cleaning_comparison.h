#pragma once
// compare_cleaning: how many captions CLIP's ftfy-like fixes (ftfy_fixes.h) tokenise differently,
// and which fixes fired, so the effect of the fixes on a caption set is a number, not a guess.
// Reads the tokenizer only (its encode is thread-safe); the result is a plain value.

#include <cstdint>
#include <string>
#include <vector>

#include "text/clip_bpe_tokenizer.h"

namespace hnclip {

struct CleaningComparison {
  int64_t captions = 0;
  int64_t differ = 0;             // token ids differ anywhere in the caption (no truncation)
  int64_t differ_in_context = 0;  // ... within the tokenizer's context (what the model sees)
  // Captions in which each fix changed something (a caption may count under several).
  int64_t html = 0, c1_controls = 0, ligatures = 0, width = 0, quotes = 0, line_breaks = 0,
          terminal_escapes = 0, control_chars = 0, nfc = 0;
};

CleaningComparison compare_cleaning(const ClipBpeTokenizer& tokenizer,
                                    const std::vector<std::string>& captions);

}  // namespace hnclip

#include "text/cleaning_comparison.h"

#include "text/ftfy_fixes.h"

namespace hnclip {

CleaningComparison compare_cleaning(const ClipBpeTokenizer& tokenizer,
                                    const std::vector<std::string>& captions) {
  CleaningComparison c;
  for (const auto& text : captions) {
    ++c.captions;
    FtfyFixReport r;
    ftfy_fix_text(text, &r);
    c.html += r.html;
    c.c1_controls += r.c1_controls;
    c.ligatures += r.ligatures;
    c.width += r.width;
    c.quotes += r.quotes;
    c.line_breaks += r.line_breaks;
    c.terminal_escapes += r.terminal_escapes;
    c.control_chars += r.control_chars;
    c.nfc += r.nfc;
    // The ids are a function of the pre-tokenised pieces, and different pieces give different
    // ids: comparing pieces compares the whole caption's ids without encoding past the context.
    const auto full = ClipBpeTokenizer::pre_tokenize(ClipBpeTokenizer::clean_text(text));
    const auto plain = ClipBpeTokenizer::pre_tokenize(
        ClipBpeTokenizer::clean_text(text, ClipCleaning::WithoutFtfy));
    if (full == plain) continue;
    ++c.differ;
    c.differ_in_context += tokenizer.encode_unpadded(text) !=
                           tokenizer.encode_unpadded(text, ClipCleaning::WithoutFtfy);
  }
  return c;
}

}  // namespace hnclip

#pragma once
// The part of a caption that tells it apart, for lists whose rows would otherwise all begin
// "This image shows three objects on a …": a caption from its first word that differs from its
// nearest neighbour (else from the end of the words every caption of the split begins with),
// after a leading "…". Lists show it and keep the full text for their tooltip, filter and sort.
// Threading: pure functions.

#include <cstdint>
#include <string>
#include <vector>

#include <QString>

namespace hnclip::gui {

// `text` from byte `start` (a word's first byte, as core/text/word_diff.h gives) after "…";
// `text` itself when start is 0 or not inside it.
QString text_from_word(const std::string& text, size_t start);

// One per caption: `nearest[i]` is the index of caption i's nearest other caption, or -1 when
// not known (`nearest` may be empty: none known).
std::vector<QString> distinguishing_texts(const std::vector<std::string>& captions,
                                          const std::vector<int64_t>& nearest);

}  // namespace hnclip::gui

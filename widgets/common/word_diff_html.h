#pragma once
// How a near-twin caption differs from another, as rich text for the Captions tab's detail view
// and heatmap pair, and the Retrieval tab's caption cards: the caption HTML-escaped, its words
// shared with the reference plain, the words the reference lacks highlighted and, optionally, the
// reference's words it lacks shown struck through where they would stand. Words and their
// comparison are core/text/word_diff.h's (case and punctuation never count). Both marks set their
// own text and background colour, so they read the same in the light and the dark palette.
// Threading: pure functions.

#include <QString>

namespace hnclip::gui {

// `text` with each run of its differing words in one <b style=…>…</b>; with `show_removed`, each
// run of the reference's words missing from `text` as <s style=…>…</s> before the word that
// follows it.
QString word_diff_html(const QString& text, const QString& reference, bool show_removed = true);

}  // namespace hnclip::gui

#pragma once
// The detail view's highlighting of near-duplicate captions (paper Fig. A1): a caption's text as
// HTML in which the content words it shares with the selected caption are marked. Words and stop
// words are exactly those of core/text/shared_content_words.h (lower-cased [a-z0-9] runs), so what
// is highlighted agrees with the stored neighbours' shared words. Threading: a pure function.

#include <QString>

namespace hnclip::gui {

// `text` HTML-escaped, with every occurrence (any case) of a content word shared with `other`
// wrapped in a <b> element with a highlight background. Punctuation and spacing are kept.
QString shared_words_html(const QString& text, const QString& other);

}  // namespace hnclip::gui

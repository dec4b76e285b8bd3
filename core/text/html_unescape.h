#pragma once
// html_unescape: Python's html.unescape() on UTF-8 text, which OpenAI CLIP's tokenizer applies
// (twice) to every caption. Stateless; safe from any thread.

#include <string>

namespace hnclip {

// Replaces every character reference the way Python 3.11's html.unescape does:
// - numeric &#NNN; and &#xHHH; (the ';' optional): code points 0x80-0x9F as Windows-1252
//   (&#150; -> U+2013), 0, surrogates and > U+10FFFF -> U+FFFD, other control characters and
//   noncharacters removed, anything else as that code point;
// - named: all 2,231 HTML5 named references (html.entities.html5, generated into
//   core/text/html_entities.inc), including the legacy ones accepted without ';' (&amp &lt &eacute
//   ...) and, as the standard says, the longest such name at the start of an unknown one
//   ("&ampx" -> "&x"). Unknown names stay as they are.
std::string html_unescape(const std::string& text);

}  // namespace hnclip

#pragma once
// ftfy_fix_text: the deterministic part of ftfy.fix_text (ftfy 6.x, default TextFixerConfig), the
// first step of OpenAI CLIP's basic_clean. Stateless over immutable tables; safe from any thread.
//
// Done, in ftfy's order (fix_text, then fix_and_explain), on each segment that ends after a "\n":
//   0. unescape_html ("auto": off from the first segment with a '<' on, that one included, as
//      ftfy's fix_text turns it off for the rest of the text): each match of
//      &#?[0-9A-Za-z]{1,24}; is replaced by Python's html.unescape of it unless the result still
//      holds a ';' (ftfy's _unescape_fixup: "&#59;" and unknown names stay as they are).
//   1. fix_c1_controls: U+0080-U+009F -> the sloppy-windows-1252 character of that byte (U+0092 ->
//      U+2019, U+0085 -> U+2026; the five bytes cp1252 leaves undefined stay themselves).
//   2. fix_latin_ligatures, ftfy's LIGATURES table: U+0132/0133 -> IJ/ij, U+0149 -> U+02BC n,
//      U+01C4-01CC -> DŽ Dž dž LJ Lj lj NJ Nj nj, U+01F1-01F3 -> DZ Dz dz, U+FB00-FB06 -> ff fi fl
//      ffi ffl ſt st.
//   3. fix_character_width: U+FF01-U+FFEF -> their NFKC form where it differs, U+3000 -> ' '.
//   4. uncurl_quotes: ftfy's SINGLE_QUOTE_RE [\u02bc\u2018-\u201b] -> ', DOUBLE_QUOTE_RE
//      [\u201c-\u201f] -> ". Primes (U+2032, U+2033) and guillemets are not quotes to ftfy.
//   5. fix_line_breaks: \r\n, \r, U+2028, U+2029, U+0085 -> \n (U+0085 never survives step 1).
//   6. remove_terminal_escapes: ESC [ [0-9;]* [A-Za-z] removed (ASCII digits; ftfy's \d would
//      also take other scripts' decimal digits).
//   7. remove_control_chars, ftfy's CONTROL_CHARS: U+0000-0008, U+000B, U+000E-001F, U+007F,
//      U+206A-206F, U+FEFF, U+FFF9-FFFC removed. Kept as ftfy keeps them: \t \n \f \r, C1
//      controls (already mapped by step 1), joiners and bidi marks (U+200C-200F, U+202A-202E).
//   8. NFC, by utf8proc (Debian's libutf8proc, Unicode 15; Python 3.11's unicodedata is 14).
//   Then all of it again until nothing changes, as ftfy does ("&amp;amp;" -> "&").
//
// Not done, and why:
//   - fix_encoding (mojibake repair: "cafÃ©" -> "café", with restore_byte_a0,
//     replace_lossy_sequences, decode_inconsistent_utf8): a heuristic driven by ftfy's badness
//     model and its sloppy codecs, not reproducible without porting all of ftfy.
//   - fix_surrogates: not applicable; the input is UTF-8 and utf8_decode turns every surrogate
//     byte sequence into U+FFFD before any fix sees it.
//   - unescape_html's upper-cased names (&EACUTE; -> É): ftfy decodes them, here they stay.
// Plain ASCII text without '&', ESC or control characters is returned unchanged.

#include <string>

namespace hnclip {

// Which of the fixes above changed something (any pass, any segment).
struct FtfyFixReport {
  bool html = false;
  bool c1_controls = false;
  bool ligatures = false;
  bool width = false;
  bool quotes = false;
  bool line_breaks = false;
  bool terminal_escapes = false;
  bool control_chars = false;
  bool nfc = false;
  bool any() const {
    return html || c1_controls || ligatures || width || quotes || line_breaks ||
           terminal_escapes || control_chars || nfc;
  }
};

// The text after the fixes above, as UTF-8 (invalid input bytes read as U+FFFD). `report`, when
// given, is filled in. Throws std::runtime_error only if utf8proc refuses the text (it cannot
// for text that went through utf8_decode).
std::string ftfy_fix_text(const std::string& text, FtfyFixReport* report = nullptr);

// NFC of UTF-8 text by utf8proc (step 8 alone), for tests and measurements.
std::string utf8proc_nfc(const std::string& text);

}  // namespace hnclip

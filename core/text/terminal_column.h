#pragma once
// Cells of fixed-width terminal tables (the CLI's run list, the experiment report). Widths count
// code points, not bytes: γ, Ḡ, ±, · and "…" take two or three bytes in UTF-8, so printf's
// "%-20.20s" pads such names short (the next column shifts left) and can cut a character in half
// (a stray byte the terminal shows as "�"). East Asian wide characters would take two terminal
// cells each; the names and labels here are not expected to hold them.

#include <cstddef>
#include <string>
#include <vector>

namespace hnclip {

// Code points in `utf8` (every byte that is not a continuation byte starts one).
size_t display_width(const std::string& utf8);

// `s` padded with spaces to `width` columns, or followed by one space when it is that wide or
// wider, so that the next column never touches it.
std::string pad_column(const std::string& s, size_t width);

// `s` when it fits in `width` columns; otherwise its start and its end around "…" (width − 1
// characters kept, one more at the start when odd), cut at character boundaries. Both ends
// matter: runs of one experiment differ only at the end of their names ("… · seed 2"), test sets
// in their split ("…/dense-captions / val"). width 0 gives "".
std::string fit_column(const std::string& s, size_t width);

// The width of a column holding `header` and `cells`: its widest entry, but no more than
// `at_most` (a longer cell is then shown through fit_column).
size_t column_width(const std::string& header, const std::vector<std::string>& cells,
                    size_t at_most);

}  // namespace hnclip

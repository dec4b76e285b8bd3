#pragma once
// Names (of runs, experiments) are one line: each is a row of `hnclip runs`, a cell of the run
// tables and a legend entry, and a line break or a tab in one broke the terminal table's columns.
// Pure function: any thread.

#include <string>

namespace hnclip {

// "" when `text` holds no control character (C0, DEL, C1); else the first one, described for an
// error message: "a line break", "a tab", "control character U+001B".
std::string control_character_in(const std::string& text);

// `text` with every control character (as above) replaced by a space: a name stored before names
// had to be one line, as a terminal table's cell.
std::string one_line(const std::string& text);

}  // namespace hnclip

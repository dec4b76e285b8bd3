#pragma once
// Reading the text files of a data set (manifests, annotation JSON, caption files) for the
// benchmark readers, with errors that name the file. Thread-safe.

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace hnclip {

// The whole file as bytes, without a leading UTF-8 byte-order mark (spreadsheet exports and some
// editors write one). Throws DataError "<path>: cannot read <what>: no such file" (or "...: I/O
// error"); `what` says what the file is for, e.g. "manifest".
std::string read_data_file(const std::filesystem::path& path, const std::string& what);

// The 1-based line of byte `offset` (0-based) in `text`, for messages about whole-file JSON whose
// parser reports byte offsets.
int line_at(const std::string& text, size_t offset);

// The 1-based line of every JSON object's opening brace in `text`, in document order (braces
// inside strings skipped), which is the order a pre-order walk of the parsed document meets the
// objects: how a reader of whole-file JSON names the line of an entry its checks refuse.
std::vector<int> json_object_lines(const std::string& text);

// True when `s` holds only white space (an empty caption in all but bytes).
bool is_blank_text(std::string_view s);

}  // namespace hnclip

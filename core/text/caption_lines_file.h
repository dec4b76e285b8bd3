#pragma once
// read_caption_lines: the captions of a caption file, for measurements over real text (`hnclip
// tokenize --compare-cleaning`). Stateless; safe from any thread.
//
// A .jsonl / .jsonlines file holds one JSON object per line and its caption under "description"
// (DOCCI's docci_descriptions.jsonlines), "caption" or, as a list, "captions" (the workbench's
// manifests); any other file holds one caption per line. Empty lines are skipped in both.

#include <string>
#include <vector>

namespace hnclip {

// Throws std::runtime_error naming the path (and the line, and the key) for a file that cannot be
// read, a line that is not a JSON object, or an object without any of the keys as above.
std::vector<std::string> read_caption_lines(const std::string& path);

}  // namespace hnclip

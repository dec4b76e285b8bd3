#pragma once
// A key typed wrong ("epoch", "loss_gama") is refused with the key it most likely meant, so the
// user fixes the spelling instead of reading the list of every key. Pure function: any thread.

#include <string>
#include <vector>

namespace hnclip {

// The word of `choices` nearest to `word` by edit distance (insertions, deletions, substitutions
// and swaps of neighbouring characters, byte-wise), when it is within a third of the longer word's
// length (at least 1) and no other choice is as near; failing that, the one choice that has `word`
// as a part between underscores ("gamma" for "loss_gamma"); else "". Ties give "" because a
// guess between two keys helps no one.
std::string nearest_word(const std::string& word, const std::vector<std::string>& choices);

}  // namespace hnclip

#pragma once
// StructureWordList: StructXLIP's caption filter. StructXLIP trains a structure-map (edge)
// embedding against the caption with its colour, material and texture words taken out, since an
// edge map cannot show them. The words come from a user-editable text file
// (resources/structxlip_words.txt is the default the workbench ships).
//
// File format: UTF-8 (a leading byte-order mark is accepted), one entry per line; `#` starts a
// comment that runs to the end of the line; blank lines are skipped. An entry is a word or a
// phrase of words: white space around it is dropped and runs of white space inside it count as
// one space. An entry holds only letters, digits, hyphens, apostrophes (' or U+2019) and white
// space, and a hyphen or apostrophe must join two letters or digits ("off-white", "navy's") —
// anything else is almost always a typing mistake in the list (a stray comma, a slash between
// two words meant as two entries), so it is refused rather than silently never matching.
//
// Matching is case-insensitive by Python's str.lower() (unicode_lower, so "Türkis" matches
// "türkis" too, not only ASCII), and an apostrophe U+2019 matches '. Repeated entries are kept
// once.
//
// Ownership/threading: an immutable value after construction; every function here is safe from
// any thread.

#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

namespace hnclip {

class StructureWordList {
 public:
  StructureWordList() = default;
  // Entries as in the file format above (no comments). Throws std::invalid_argument naming the
  // entry (and the column) that breaks the rules; no entries is allowed here (it removes nothing).
  explicit StructureWordList(const std::vector<std::string>& entries);

  // The entries lower-cased and single-spaced, in first-seen order, each once.
  const std::vector<std::string>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }
  // True when `entry` (a word or phrase, any case and spacing) is one of the entries.
  bool contains(const std::string& entry) const;

 private:
  friend std::string remove_structure_words(const std::string& caption,
                                            const StructureWordList& words);
  std::vector<std::string> entries_;
  // First word's key -> the entries starting with it, as word keys, longest first, so a phrase
  // wins over the single word it begins with ("black and white" before "black").
  std::unordered_map<std::string, std::vector<std::vector<std::string>>> by_first_word_;
};

// Reads a word list file (format above). Throws std::runtime_error, as the other text files'
// readers do, with a message naming the file and, for a bad line, the line:
//   "<file>: cannot read the structure word list: no such file" (or "cannot open the file",
//   "I/O error"),
//   "<file>:<line>: not UTF-8 (byte 0xff at column 7)" (byte columns, from 1; after a BOM),
//   "<file>:<line>: \"red/blue\": '/' at column 4 ..." (a character an entry cannot hold),
//   "<file>: no entries (every line is blank or a comment)" — an empty list would train the
//   structure embedding on the full caption, which is never what a user editing the list means.
StructureWordList read_structure_word_list(const std::filesystem::path& file);

// `caption` with every entry of `words` removed where it occurs as whole words: a word is a run
// of letters and digits, joined by single hyphens or apostrophes ("red" does not touch "redwood"
// or "red-brown"), and a phrase's words may be separated by any white space in the caption.
// Case-insensitive; at each word the longest entry starting there wins. The removal rule, which
// keeps punctuation attached where it was and the ". " between sentences intact:
//   - a removed word (or phrase) takes the white space after it along, so no double space is
//     left; before punctuation or at the end of the caption it takes the white space before it
//     instead ("plain grey." -> "plain.");
//   - a comma, semicolon or colon left directly before a , ; : . ! ? or at the end goes too
//     ("a large red circle, hollow." -> "a large circle.");
//   - a sentence left empty ("Red." between two sentences) goes with its stop and the space
//     after it; a , ; : left at the start of a sentence goes with the space after it;
//   - everything else is kept byte for byte: white space elsewhere, the case of the words left
//     (a removed capitalised first word does not capitalise the next), other punctuation ("()").
std::string remove_structure_words(const std::string& caption, const StructureWordList& words);

}  // namespace hnclip

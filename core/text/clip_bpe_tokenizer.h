#pragma once
// ClipBpeTokenizer: OpenAI CLIP's byte-level BPE tokenizer (clip/simple_tokenizer.py +
// clip.tokenize), read from CLIP's bpe_simple_vocab_16e6.txt.gz.
//
// Vocabulary, as CLIP builds it: the 256 byte symbols (GPT-2 bytes_to_unicode order), the same
// with "</w>", one entry per merge of the file's lines 2..48,895 (merges[1:49152-256-2+1]), then
// <|startoftext|> = 49406 and <|endoftext|> = 49407: 49,408 ids. Pad id 0 (it is also "!", as in
// CLIP, whose rows are zero-padded).
//
// Cleaning, as CLIP's basic_clean + whitespace_clean + lower():
//   - ftfy.fix_text's deterministic default fixes (ftfy_fixes.h): HTML entities up to the first
//     line with '<', C1 controls as cp1252, Latin ligatures, full/half-width forms, curly
//     quotes ("it’s" gives "it" "'s", as in CLIP), line breaks, terminal escapes, control
//     characters, NFC.
//     Not done: ftfy's mojibake repair (fix_encoding: "cafÃ©" stays, where CLIP gives "café")
//     and its upper-cased entity names (&EACUTE;). Text those don't touch tokenises as in CLIP.
//   - html.unescape twice: exactly Python 3.11's, all HTML5 named references (html_unescape.h).
//   - whitespace runs (Python's str.isspace set) -> one space, then stripped.
//   - lower case: Python's str.lower() for all scripts, without the Greek final-sigma rule
//     (unicode_text.h).
// Pre-tokenisation: CLIP's pattern
//   <\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+
// hand-written over code points, alternatives tried in that order at each position (as a
// backtracking regex does), \p{L}/\p{N} from Unicode 14.0 general categories, \s as above; a
// number is one token per digit. Like CLIP, a literal "<|endoftext|>" in a caption becomes the
// special id. Input bytes that are not valid UTF-8 are read as U+FFFD.
//
// Threading: immutable after construction except for a merge cache behind a shared mutex, so
// encode() is safe from several loader threads at once.

#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "text/tokenizer.h"

namespace hnclip {

// Full = CLIP's cleaning as documented above; WithoutFtfy skips ftfy_fix_text (the tokenizer's
// behaviour before it was added), to measure what the fixes change.
enum class ClipCleaning { Full, WithoutFtfy };

class ClipBpeTokenizer : public Tokenizer {
 public:
  // Reads the gzip'd merge file; throws std::runtime_error naming the path (and the line) if it
  // is missing, not gzip, corrupt, or has fewer merge lines than CLIP uses. Throws
  // std::invalid_argument for context_length < 2 (start and end must fit).
  explicit ClipBpeTokenizer(const std::string& vocab_path, int64_t context_length = 77);
  ~ClipBpeTokenizer() override;

  // Rebuilds from to_json(); throws std::runtime_error naming the missing or malformed key.
  static std::unique_ptr<ClipBpeTokenizer> from_json(const nlohmann::json& j);

  std::string kind() const override { return "clip-bpe"; }
  int64_t vocab_size() const override { return static_cast<int64_t>(vocab_.size()); }
  int64_t context_length() const override { return context_length_; }
  int64_t start_id() const override { return start_id_; }
  int64_t end_id() const override { return end_id_; }
  std::vector<int64_t> encode(const std::string& text) const override;
  // {"kind": "clip-bpe", "vocab_path": ..., "context_length": N}
  nlohmann::json to_json() const override;

  // [start, tokens..., end] without padding, truncated to context_length() keeping the end token
  // last (clip.tokenize(truncate=True) before padding).
  std::vector<int64_t> encode_unpadded(const std::string& text,
                                       ClipCleaning cleaning = ClipCleaning::Full) const;
  // CLIP's decode: the ids' bytes as UTF-8 with each "</w>" read as a space (special tokens kept
  // as their text). Throws std::out_of_range for an id outside the vocabulary.
  std::string decode(const std::vector<int64_t>& ids) const;

  // CLIP's cleaning (see above) of one caption, as UTF-8.
  static std::string clean_text(const std::string& text, ClipCleaning cleaning = ClipCleaning::Full);
  // CLIP's pre-tokenisation of already cleaned text into UTF-8 pieces.
  static std::vector<std::string> pre_tokenize(const std::string& cleaned);

  const std::string& vocab_path() const { return vocab_path_; }
  // id -> symbol, as CLIP's encoder dict holds it (bytes_to_unicode text, "</w>" ends words):
  // what a Hugging Face vocab.json maps to ids.
  const std::vector<std::string>& symbols() const { return vocab_; }
  // The merges in rank order, "left right" as in the merge file (and a Hugging Face merges.txt).
  std::vector<std::string> merges() const;

 private:
  // BPE ids of one pre-tokenised piece (through the cache).
  void append_piece_ids(const std::string& piece, std::vector<int64_t>& out) const;
  std::vector<int64_t> bpe(const std::string& piece) const;

  std::string vocab_path_;
  int64_t context_length_;
  int64_t start_id_ = 0, end_id_ = 0;
  std::vector<std::string> vocab_;                    // id -> symbol (byte-encoded)
  std::unordered_map<std::string, int64_t> ids_;      // symbol -> id
  std::unordered_map<std::string, int32_t> ranks_;    // "left right" -> merge rank
  std::string byte_symbol_[256];                      // byte -> its bytes_to_unicode symbol (UTF-8)
  std::unordered_map<char32_t, unsigned char> symbol_byte_;  // inverse, for decode()

  mutable std::shared_mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::vector<int64_t>> cache_;  // piece -> ids
};

}  // namespace hnclip

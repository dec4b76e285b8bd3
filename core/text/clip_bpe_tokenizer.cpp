#include "text/clip_bpe_tokenizer.h"

#include <zlib.h>

#include <algorithm>
#include <limits>
#include <mutex>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "text/ftfy_fixes.h"
#include "text/html_unescape.h"
#include "text/unicode_text.h"

namespace hnclip {

namespace {

constexpr int64_t kMinContextLength = 2;             // start + end
constexpr size_t kMergeCount = 49152 - 256 - 2;      // merges CLIP uses: lines 2 .. 48,895
constexpr size_t kVocabSize = 256 * 2 + kMergeCount + 2;  // 49,408
constexpr size_t kMaxCacheEntries = 1u << 20;        // distinct pieces remembered (~100 MB at most)
constexpr int kReadChunk = 1 << 16;                  // gzread chunk, bytes
constexpr char kStartText[] = "<|startoftext|>";
constexpr char kEndText[] = "<|endoftext|>";
constexpr char kEndOfWord[] = "</w>";
constexpr char32_t kLongS = 0x17F;  // 'ſ', equal to 's' under CLIP's re.IGNORECASE

// GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves, the other 68 bytes get
// code points 256.. in byte order. Returned in CLIP's vocabulary order (printable ones first).
std::vector<std::pair<unsigned char, char32_t>> bytes_to_unicode() {
  std::vector<std::pair<unsigned char, char32_t>> out;
  auto printable = [](int b) { return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF); };
  for (int b = 0; b < 256; ++b) {
    if (printable(b)) out.emplace_back(static_cast<unsigned char>(b), static_cast<char32_t>(b));
  }
  char32_t next = 256;
  for (int b = 0; b < 256; ++b) {
    if (!printable(b)) out.emplace_back(static_cast<unsigned char>(b), next++);
  }
  return out;
}

// The whole decompressed file; throws naming the path for a missing, non-gzip or corrupt file.
std::string read_gzip_file(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) throw std::runtime_error("CLIP BPE vocabulary " + path + ": cannot open the file");
  struct Closer {
    gzFile f;
    ~Closer() { gzclose(f); }
  } closer{f};
  // zlib would read a plain file transparently; CLIP's file is always gzip'd.
  if (gzdirect(f) == 1) throw std::runtime_error("CLIP BPE vocabulary " + path + ": not a gzip file");
  std::string text;
  char buffer[kReadChunk];
  for (;;) {
    const int n = gzread(f, buffer, kReadChunk);
    if (n < 0) {
      int errnum = 0;
      const char* message = gzerror(f, &errnum);
      const auto line = std::count(text.begin(), text.end(), '\n') + 1;
      throw std::runtime_error("CLIP BPE vocabulary " + path + ": line " + std::to_string(line) +
                               ": corrupt gzip data (" + (message ? message : "unknown zlib error") + ")");
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  // At end of input zlib reports Z_BUF_ERROR when the last gzip stream was cut short.
  int errnum = Z_OK;
  gzerror(f, &errnum);
  if (errnum != Z_OK) {
    const auto line = std::count(text.begin(), text.end(), '\n') + 1;
    throw std::runtime_error("CLIP BPE vocabulary " + path + ": line " + std::to_string(line) +
                             ": the gzip data ends early (truncated file)");
  }
  return text;
}

bool is_piece_char(char32_t cp) { return !is_unicode_space(cp) && !is_unicode_letter(cp) && !is_unicode_number(cp); }

// Whether the ASCII literal `lit` starts at text[i], 's' also matching 'ſ' (re.IGNORECASE).
bool literal_at(const std::u32string& text, size_t i, const char* lit) {
  for (; *lit != '\0'; ++lit, ++i) {
    if (i >= text.size()) return false;
    const auto want = static_cast<char32_t>(static_cast<unsigned char>(*lit));
    if (text[i] != want && !(want == 's' && text[i] == kLongS)) return false;
  }
  return true;
}

size_t length_of(const char* lit) { return std::char_traits<char>::length(lit); }

}  // namespace

ClipBpeTokenizer::ClipBpeTokenizer(const std::string& vocab_path, int64_t context_length)
    : vocab_path_(vocab_path), context_length_(context_length) {
  if (context_length_ < kMinContextLength) {
    throw std::invalid_argument("ClipBpeTokenizer: context_length " + std::to_string(context_length_) +
                                " is below the minimum of 2 (start and end tokens)");
  }
  const std::string text = read_gzip_file(vocab_path_);

  vocab_.reserve(kVocabSize);
  for (const auto& [byte, cp] : bytes_to_unicode()) {
    std::string symbol;
    append_utf8(symbol, cp);
    byte_symbol_[byte] = symbol;
    symbol_byte_[cp] = byte;
    vocab_.push_back(symbol);
  }
  for (size_t b = 0; b < 256; ++b) vocab_.push_back(vocab_[b] + kEndOfWord);

  // Line 1 is the "#version" header; lines 2 .. kMergeCount+1 are the merges in rank order.
  ranks_.reserve(kMergeCount);
  size_t pos = text.find('\n');
  for (size_t m = 0; m < kMergeCount; ++m) {
    const size_t line_no = m + 2;
    if (pos == std::string::npos || pos + 1 >= text.size()) {
      throw std::runtime_error("CLIP BPE vocabulary " + vocab_path_ + ": line " + std::to_string(line_no) +
                               ": file ends, but CLIP needs " + std::to_string(kMergeCount) +
                               " merge lines after the header");
    }
    const size_t start = pos + 1;
    size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    pos = end;
    const size_t space = line.find(' ');
    if (line.empty() || space == 0 || space == std::string::npos || space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string::npos) {
      throw std::runtime_error("CLIP BPE vocabulary " + vocab_path_ + ": line " + std::to_string(line_no) +
                               ": expected a merge \"left right\", got \"" + line.substr(0, 80) + "\"");
    }
    ranks_.emplace(line, static_cast<int32_t>(m));
    vocab_.push_back(line.substr(0, space) + line.substr(space + 1));
  }
  start_id_ = static_cast<int64_t>(vocab_.size());
  vocab_.push_back(kStartText);
  end_id_ = static_cast<int64_t>(vocab_.size());
  vocab_.push_back(kEndText);

  ids_.reserve(vocab_.size());
  for (size_t i = 0; i < vocab_.size(); ++i) ids_[vocab_[i]] = static_cast<int64_t>(i);  // later wins, as in CLIP's dict
}

ClipBpeTokenizer::~ClipBpeTokenizer() = default;

std::unique_ptr<ClipBpeTokenizer> ClipBpeTokenizer::from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("clip-bpe tokenizer JSON: expected an object, got " + j.dump());
  auto require = [&](const char* key) -> const nlohmann::json& {
    const auto it = j.find(key);
    if (it == j.end()) throw std::runtime_error(std::string("clip-bpe tokenizer JSON: missing key \"") + key + "\"");
    return *it;
  };
  const auto& kind = require("kind");
  if (!kind.is_string() || kind.get<std::string>() != "clip-bpe") {
    throw std::runtime_error("clip-bpe tokenizer JSON: key \"kind\" must be \"clip-bpe\", got " + kind.dump());
  }
  const auto& path = require("vocab_path");
  if (!path.is_string()) {
    throw std::runtime_error("clip-bpe tokenizer JSON: key \"vocab_path\" must be a string, got " + path.dump());
  }
  const auto& ctx = require("context_length");
  if (!ctx.is_number_integer() || ctx.get<int64_t>() < kMinContextLength) {
    throw std::runtime_error("clip-bpe tokenizer JSON: key \"context_length\" must be an integer >= 2, got " +
                             ctx.dump());
  }
  try {
    return std::make_unique<ClipBpeTokenizer>(path.get<std::string>(), ctx.get<int64_t>());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("clip-bpe tokenizer JSON: key \"vocab_path\": ") + e.what());
  }
}

nlohmann::json ClipBpeTokenizer::to_json() const {
  return nlohmann::json{{"kind", kind()}, {"vocab_path", vocab_path_}, {"context_length", context_length_}};
}

std::string ClipBpeTokenizer::clean_text(const std::string& text, ClipCleaning cleaning) {
  const std::string fixed = cleaning == ClipCleaning::Full ? ftfy_fix_text(text) : text;
  const std::u32string unescaped = utf8_decode(html_unescape(html_unescape(fixed)));
  std::u32string collapsed;
  collapsed.reserve(unescaped.size());
  bool pending_space = false;
  for (char32_t cp : unescaped) {
    if (is_unicode_space(cp)) {
      pending_space = !collapsed.empty();  // leading whitespace is stripped
      continue;
    }
    if (pending_space) collapsed.push_back(' ');
    pending_space = false;
    collapsed.push_back(cp);
  }
  return utf8_encode(unicode_lower(collapsed));
}

std::vector<std::string> ClipBpeTokenizer::pre_tokenize(const std::string& cleaned) {
  static const char* const kContractions[] = {"'s", "'t", "'re", "'ve", "'m", "'ll", "'d"};
  const std::u32string t = utf8_decode(cleaned);
  std::vector<std::string> pieces;
  size_t i = 0;
  while (i < t.size()) {
    size_t end = i;
    const char32_t c = t[i];
    if (c == '<' && literal_at(t, i, kStartText)) {
      end = i + length_of(kStartText);
    } else if (c == '<' && literal_at(t, i, kEndText)) {
      end = i + length_of(kEndText);
    } else if (c == '\'') {
      for (const char* lit : kContractions) {
        if (literal_at(t, i, lit)) {
          end = i + length_of(lit);
          break;
        }
      }
    }
    if (end == i) {
      if (is_unicode_letter(c)) {
        while (end < t.size() && is_unicode_letter(t[end])) ++end;
      } else if (is_unicode_number(c)) {
        end = i + 1;
      } else if (!is_unicode_space(c)) {
        while (end < t.size() && is_piece_char(t[end])) ++end;
      } else {
        ++i;  // whitespace separates pieces and belongs to none
        continue;
      }
    }
    pieces.push_back(utf8_encode(t.substr(i, end - i)));
    i = end;
  }
  return pieces;
}

std::vector<int64_t> ClipBpeTokenizer::bpe(const std::string& piece) const {
  std::vector<std::string> word;
  word.reserve(piece.size());
  for (char ch : piece) word.push_back(byte_symbol_[static_cast<unsigned char>(ch)]);
  word.back() += kEndOfWord;
  std::string key;
  while (word.size() > 1) {
    // The adjacent pair with the lowest merge rank; done when no pair is a known merge.
    int32_t best_rank = std::numeric_limits<int32_t>::max();
    size_t best = word.size();
    for (size_t k = 0; k + 1 < word.size(); ++k) {
      key.assign(word[k]).append(1, ' ').append(word[k + 1]);
      const auto it = ranks_.find(key);
      if (it != ranks_.end() && it->second < best_rank) {
        best_rank = it->second;
        best = k;
      }
    }
    if (best == word.size()) break;
    // Merge every occurrence of that pair, left to right, without overlaps.
    const std::string first = word[best], second = word[best + 1];
    std::vector<std::string> merged;
    merged.reserve(word.size());
    for (size_t k = 0; k < word.size();) {
      if (k + 1 < word.size() && word[k] == first && word[k + 1] == second) {
        merged.push_back(first + second);
        k += 2;
      } else {
        merged.push_back(std::move(word[k]));
        ++k;
      }
    }
    word = std::move(merged);
  }
  std::vector<int64_t> ids;
  ids.reserve(word.size());
  for (const auto& symbol : word) {
    const auto it = ids_.find(symbol);
    if (it == ids_.end()) {
      throw std::logic_error("ClipBpeTokenizer: BPE symbol \"" + symbol + "\" of \"" + piece + "\" is not in " + vocab_path_);
    }
    ids.push_back(it->second);
  }
  return ids;
}

void ClipBpeTokenizer::append_piece_ids(const std::string& piece, std::vector<int64_t>& out) const {
  if (piece == kStartText) return out.push_back(start_id_);
  if (piece == kEndText) return out.push_back(end_id_);
  {
    std::shared_lock<std::shared_mutex> lock(cache_mutex_);
    const auto it = cache_.find(piece);
    if (it != cache_.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  auto ids = bpe(piece);
  out.insert(out.end(), ids.begin(), ids.end());
  std::unique_lock<std::shared_mutex> lock(cache_mutex_);
  if (cache_.size() < kMaxCacheEntries) cache_.emplace(piece, std::move(ids));
}

std::vector<int64_t> ClipBpeTokenizer::encode_unpadded(const std::string& text,
                                                       ClipCleaning cleaning) const {
  std::vector<int64_t> ids{start_id_};
  for (const auto& piece : pre_tokenize(clean_text(text, cleaning))) {
    append_piece_ids(piece, ids);
    if (static_cast<int64_t>(ids.size()) >= context_length_) break;  // the rest would be cut anyway
  }
  ids.push_back(end_id_);
  if (static_cast<int64_t>(ids.size()) > context_length_) {
    ids.resize(static_cast<size_t>(context_length_));
    ids.back() = end_id_;
  }
  return ids;
}

std::vector<int64_t> ClipBpeTokenizer::encode(const std::string& text) const {
  auto ids = encode_unpadded(text);
  ids.resize(static_cast<size_t>(context_length_), 0);
  return ids;
}

std::string ClipBpeTokenizer::decode(const std::vector<int64_t>& ids) const {
  std::string bytes;
  for (int64_t id : ids) {
    if (id < 0 || id >= vocab_size()) {
      throw std::out_of_range("ClipBpeTokenizer::decode: id " + std::to_string(id) + " is outside [0, " +
                              std::to_string(vocab_size()) + ")");
    }
    for (char32_t cp : utf8_decode(vocab_[static_cast<size_t>(id)])) bytes.push_back(static_cast<char>(symbol_byte_.at(cp)));
  }
  std::string out;
  out.reserve(bytes.size());
  const size_t eow = length_of(kEndOfWord);
  for (size_t i = 0; i < bytes.size();) {
    if (bytes.compare(i, eow, kEndOfWord) == 0) {
      out.push_back(' ');
      i += eow;
    } else {
      out.push_back(bytes[i++]);
    }
  }
  return out;
}

std::vector<std::string> ClipBpeTokenizer::merges() const {
  std::vector<std::string> out(ranks_.size());
  for (const auto& [pair, rank] : ranks_) out[static_cast<size_t>(rank)] = pair;
  return out;
}

}  // namespace hnclip

// libFuzzer target: CLIP's BPE tokenizer on arbitrary caption bytes (invalid UTF-8, controls,
// HTML entities, special tokens), through both cleanings, the pre-tokeniser and decode. Every
// input must tokenise; nothing here is allowed to throw, so any exception is a finding too.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "text/clip_bpe_tokenizer.h"

namespace {
// Short enough that truncation (keeping the end token last) is reached by ordinary inputs.
constexpr int64_t kContextLength = 16;

const hnclip::ClipBpeTokenizer& tokenizer() {
  static const hnclip::ClipBpeTokenizer t(HNCLIP_FUZZ_VOCAB_PATH, kContextLength);
  return t;
}

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_clip_bpe_tokenizer: %s\n", what);
    std::abort();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto& t = tokenizer();
  for (auto cleaning : {hnclip::ClipCleaning::Full, hnclip::ClipCleaning::WithoutFtfy}) {
    const auto ids = t.encode_unpadded(text, cleaning);
    check(ids.size() >= 2 && static_cast<int64_t>(ids.size()) <= t.context_length(), "length out of range");
    check(ids.front() == t.start_id() && ids.back() == t.end_id(), "start/end token misplaced");
    for (auto id : ids) check(id >= 0 && id < t.vocab_size(), "id outside the vocabulary");
    (void)t.decode(ids);
  }
  const auto padded = t.encode(text);
  check(static_cast<int64_t>(padded.size()) == t.context_length(), "encode() not padded to the context");
  (void)hnclip::ClipBpeTokenizer::pre_tokenize(hnclip::ClipBpeTokenizer::clean_text(text));
  return 0;
}

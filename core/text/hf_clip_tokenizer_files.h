#pragma once
// A Hugging Face CLIPTokenizer's files (vocab.json: symbol -> id, merges.txt: "#version" line then
// one "left right" merge per line) checked against, and written from, CLIP's BPE vocabulary.
// The workbench tokenizes with ClipBpeTokenizer only; an HF folder's tokenizer is accepted when
// it is exactly CLIP's (the case for every openai/* and laion/* CLIP on the hub), and refused
// naming the first difference otherwise, since a silently different vocabulary would give wrong
// text features with no error. Free functions; any thread.

#include <string>

#include "text/clip_bpe_tokenizer.h"

namespace hnclip {

// Throws std::runtime_error naming the file and the key (vocab.json) or line (merges.txt) of the
// first difference from `clip` (size, id, symbol, merge order), or a file that is not readable /
// not a JSON object of integer ids.
void check_hf_clip_tokenizer_files(const std::string& vocab_json, const std::string& merges_txt,
                                   const ClipBpeTokenizer& clip);

// Writes vocab.json, merges.txt, special_tokens_map.json and tokenizer_config.json into `folder`
// (which must exist) as transformers' CLIPTokenizer.save_pretrained lays them out, for a model
// whose context length is clip.context_length(). Throws std::runtime_error naming a file it
// cannot write.
void write_hf_clip_tokenizer_files(const std::string& folder, const ClipBpeTokenizer& clip);

}  // namespace hnclip

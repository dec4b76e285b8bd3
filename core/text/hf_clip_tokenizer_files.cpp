#include "text/hf_clip_tokenizer_files.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace hnclip {

namespace {
constexpr const char* kMergesHeader = "#version: 0.2";  // what CLIP's merge file and HF's start with
constexpr const char* kStartToken = "<|startoftext|>";
constexpr const char* kEndToken = "<|endoftext|>";

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open the file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error(path + ": cannot write the file");
}
}  // namespace

void check_hf_clip_tokenizer_files(const std::string& vocab_json, const std::string& merges_txt,
                                   const ClipBpeTokenizer& clip) {
  nlohmann::json vocab;
  try {
    vocab = nlohmann::json::parse(read_text_file(vocab_json));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(vocab_json + ": not JSON (" + e.what() + ")");
  }
  if (!vocab.is_object()) throw std::runtime_error(vocab_json + ": not a JSON object of token ids");
  const auto& symbols = clip.symbols();
  if (vocab.size() != symbols.size()) {
    throw std::runtime_error(vocab_json + ": " + std::to_string(vocab.size()) +
                             " tokens, CLIP's BPE vocabulary has " +
                             std::to_string(symbols.size()) + ": not CLIP's tokenizer");
  }
  for (size_t id = 0; id < symbols.size(); ++id) {
    const auto it = vocab.find(symbols[id]);
    if (it == vocab.end() || !it->is_number_integer() ||
        it->get<int64_t>() != static_cast<int64_t>(id)) {
      throw std::runtime_error(
          vocab_json + ": key '" + symbols[id] + "' " +
          (it == vocab.end() ? std::string("is missing") : "maps to " + it->dump()) +
          ", CLIP's BPE vocabulary has it at id " + std::to_string(id) + ": not CLIP's tokenizer");
    }
  }
  std::istringstream lines(read_text_file(merges_txt));
  const auto merges = clip.merges();
  std::string line;
  size_t line_no = 0, merge = 0;
  // CLIPTokenizer reads lines 2 .. 48,895 and ignores any after them, as CLIP does.
  while (merge < merges.size() && std::getline(lines, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line_no == 1 && line.rfind("#version", 0) == 0) continue;
    if (line != merges[merge]) {
      throw std::runtime_error(merges_txt + ": line " + std::to_string(line_no) + ": '" +
                               line.substr(0, 80) + "', CLIP's merge " + std::to_string(merge + 1) +
                               " is '" + merges[merge] + "': not CLIP's tokenizer");
    }
    ++merge;
  }
  if (merge != merges.size()) {
    throw std::runtime_error(merges_txt + ": " + std::to_string(merge) + " merges, CLIP has " +
                             std::to_string(merges.size()) + " (truncated file?)");
  }
}

void write_hf_clip_tokenizer_files(const std::string& folder, const ClipBpeTokenizer& clip) {
  // ordered_json keeps ids in order, as transformers writes vocab.json.
  nlohmann::ordered_json vocab;
  const auto& symbols = clip.symbols();
  for (size_t id = 0; id < symbols.size(); ++id) vocab[symbols[id]] = id;
  write_text_file(folder + "/vocab.json", vocab.dump());

  std::string merges = std::string(kMergesHeader) + "\n";
  for (const auto& m : clip.merges()) merges += m + "\n";
  write_text_file(folder + "/merges.txt", merges);

  // transformers' CLIPTokenizer pads with <|endoftext|>; the text tower pools at the first end
  // token (the largest id), so the padding id does not change the features.
  const nlohmann::ordered_json special = {{"bos_token", kStartToken},
                                          {"eos_token", kEndToken},
                                          {"pad_token", kEndToken},
                                          {"unk_token", kEndToken}};
  write_text_file(folder + "/special_tokens_map.json", special.dump(2));
  nlohmann::ordered_json config = special;
  config["tokenizer_class"] = "CLIPTokenizer";
  config["model_max_length"] = clip.context_length();
  config["do_lower_case"] = true;
  write_text_file(folder + "/tokenizer_config.json", config.dump(2));
}

}  // namespace hnclip

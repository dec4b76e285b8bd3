// `hnclip tokenize`: the CLIP BPE token ids of one or more texts, exactly as the text tower sees
// them (start ... end, truncated to --context keeping the end token; padding not shown).

#include <cstdint>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_support.h"
#include "commands.h"
#include "common_options.h"
#include "job/workbench_paths.h"
#include "text/clip_bpe_tokenizer.h"

namespace hnclip::cli {

CommandAction add_tokenize_command(CLI::App& app) {
  struct Options {
    std::string vocab;
    int64_t context = 77;
    bool json = false;
    std::vector<std::string> texts;
  };
  auto o = std::make_shared<Options>();
  auto* cmd =
      app.add_subcommand("tokenize", "CLIP BPE token ids of texts (start ... end, no padding)");
  take_last_value(cmd);
  o->vocab = shipped_clip_vocab();
  cmd->add_option("--vocab", o->vocab, "CLIP's BPE vocabulary (default: the shipped one)")
      ->capture_default_str();
  cmd->add_option("--context", o->context,
                  "context length: 77 (CLIP) or 248 (Long-CLIP); at least 2")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "print {\"ids\": [[...], ...]} on stdout");
  // A vector positional keeps every text; "--" ends the options so a text may start with '-'.
  cmd->add_option("text", o->texts, "texts to tokenize, one id row each")
      ->required()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  return [o]() {
    if (o->context < 2) {
      throw UsageError("--context must be at least 2 (start and end tokens), got " +
                       std::to_string(o->context));
    }
    std::unique_ptr<ClipBpeTokenizer> tok;
    try {
      tok = std::make_unique<ClipBpeTokenizer>(o->vocab, o->context);
    } catch (const std::runtime_error& e) {
      throw UsageError(std::string("--vocab: ") + e.what());
    }
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& text : o->texts) {
      const auto ids = tok->encode_unpadded(text);
      if (o->json) {
        rows.push_back(ids);
        continue;
      }
      for (size_t i = 0; i < ids.size(); ++i) std::cout << (i ? " " : "") << ids[i];
      std::cout << '\n';
    }
    if (o->json) std::cout << nlohmann::json{{"ids", rows}}.dump() << '\n';
    std::cout.flush();
    return kExitOk;
  };
}

}  // namespace hnclip::cli

// `hnclip tokenize`: the CLIP BPE token ids of one or more texts, exactly as the text tower sees
// them (start ... end, truncated to --context keeping the end token; padding not shown), or with
// --compare-cleaning FILE how many of a file's captions the ftfy-like fixes tokenise differently.

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
#include "text/caption_lines_file.h"
#include "text/cleaning_comparison.h"
#include "text/clip_bpe_tokenizer.h"

namespace hnclip::cli {

namespace {

int print_cleaning_comparison(const ClipBpeTokenizer& tok, const std::string& path, bool json) {
  std::vector<std::string> captions;
  try {
    captions = read_caption_lines(path);
  } catch (const std::runtime_error& e) {
    throw UsageError(std::string("--compare-cleaning: ") + e.what());
  }
  const auto c = compare_cleaning(tok, captions);
  const std::vector<std::pair<const char*, int64_t>> fixes = {
      {"curly_quotes", c.quotes},       {"html_entities", c.html},
      {"ligatures", c.ligatures},       {"width_forms", c.width},
      {"nfc", c.nfc},                   {"control_chars", c.control_chars},
      {"c1_controls", c.c1_controls},   {"line_breaks", c.line_breaks},
      {"terminal_escapes", c.terminal_escapes}};
  if (json) {
    nlohmann::json changed = nlohmann::json::object();
    for (const auto& [name, n] : fixes) changed[name] = n;
    std::cout << nlohmann::json{{"file", path},
                                {"captions", c.captions},
                                {"differ", c.differ},
                                {"differ_in_context", c.differ_in_context},
                                {"context", tok.context_length()},
                                {"changed_by", changed}}
                     .dump()
              << std::endl;
    return kExitOk;
  }
  std::cout << c.differ << " of " << c.captions
            << " captions tokenize differently with ftfy-like cleaning (" << c.differ_in_context
            << " within the first " << tok.context_length() << " tokens); captions changed by:";
  for (size_t i = 0; i < fixes.size(); ++i) {
    std::cout << (i ? ", " : " ") << fixes[i].first << " " << fixes[i].second;
  }
  std::cout << std::endl;
  return kExitOk;
}

}  // namespace

CommandAction add_tokenize_command(CLI::App& app) {
  struct Options {
    std::string vocab;
    int64_t context = 77;
    bool json = false;
    std::vector<std::string> texts;
    std::string compare_file;
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
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--compare-cleaning", o->compare_file,
                  "count the captions of FILE (one a line; .jsonl: \"description\", "
                  "\"caption\" or \"captions\") that tokenize differently without the ftfy-like fixes");
  return [o]() {
    if (o->compare_file.empty() == o->texts.empty()) {
      throw UsageError(o->texts.empty()
                           ? "text: give texts to tokenize, or --compare-cleaning FILE"
                           : "--compare-cleaning: takes a file, not texts as well");
    }
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
    if (!o->compare_file.empty()) return print_cleaning_comparison(*tok, o->compare_file, o->json);
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

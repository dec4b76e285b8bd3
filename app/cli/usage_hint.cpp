#include "usage_hint.h"

#include <vector>

#include "text/nearest_word.h"

namespace hnclip::cli {
namespace {

// The deepest command the parser entered: its flags are the ones the user meant.
const CLI::App* parsed_command(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) {
    if (sub->parsed()) return parsed_command(*sub);
  }
  return &app;
}

std::string without_dashes(const std::string& word) {
  const size_t start = word.find_first_not_of('-');
  return start == std::string::npos ? std::string() : word.substr(start);
}

}  // namespace

std::string usage_hint(const CLI::App& app, const CLI::ParseError& error) {
  const CLI::App* command = parsed_command(app);
  const std::vector<std::string> left = command->remaining();
  if (left.empty()) return {};
  const bool extras = dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr;
  std::vector<std::string> commands;
  for (const CLI::App* sub : command->get_subcommands([](const CLI::App*) { return true; }))
    commands.push_back(sub->get_name());
  if (!commands.empty() && left.front()[0] != '-') {
    // A command that has commands (hnclip, experiment) was given a word that is none of them.
    const std::string near = nearest_word(left.front(), commands);
    const std::string of = command == &app ? "" : " of " + command->get_name();
    return "'" + left.front() + "' is not a command" + of +
           (near.empty() ? std::string(" (see --help)") : " (did you mean " + near + "?)");
  }
  if (!extras) return {};
  for (const auto& word : left) {
    if (word.size() < 2 || word[0] != '-') continue;
    const std::string name = without_dashes(word.substr(0, word.find('=')));
    std::vector<std::string> flags;
    for (const CLI::Option* option : command->get_options()) {
      for (const auto& long_name : option->get_lnames()) flags.push_back(long_name);
    }
    const std::string near = nearest_word(name, flags);
    return word.substr(0, word.find('=')) + ": no such option of " + command->get_name() +
           (near.empty() ? std::string(" (see " + command->get_name() + " --help)")
                         : " (did you mean --" + near + "?)");
  }
  return {};
}

}  // namespace hnclip::cli

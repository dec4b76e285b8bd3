#pragma once
// A mistyped flag or command answered with the one meant. CLI11 says "The following arguments
// were not expected: 0.5 --gama" (the words reversed) for `train --gama 0.5`, and "A subcommand is
// required" for `hnclip runz`; a researcher wants "--gama: no such option of train (did you mean
// --gamma?)". Read after a parse error, from what the parser left over.

#include <string>

#include <CLI/CLI.hpp>

namespace hnclip::cli {

// The message for the first word the parser could not place — an unknown --flag of the command
// given, or an unknown command (of hnclip, or of `experiment`) — with the nearest known one when
// there is one; "" when nothing was left over, or when `error` is about something else (a value it
// could not convert: its own message says it better).
std::string usage_hint(const CLI::App& app, const CLI::ParseError& error);

}  // namespace hnclip::cli

#pragma once
// Registers --db, --cache-dir and --json on a subcommand.

#include <CLI/CLI.hpp>

#include "cli_support.h"

namespace hnclip::cli {

// Later occurrences of a flag override earlier ones (as in most CLIs), so scripts can append.
inline void take_last_value(CLI::App* cmd) {
  cmd->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

inline void add_common_options(CLI::App* cmd, CommonOptions& o, bool with_json = true) {
  cmd->add_option("--db", o.database, "SQLite run database (default: $XDG_DATA_HOME/hnclip-workbench/runs.db)");
  cmd->add_option("--cache-dir", o.cache_dir, "where generated benchmarks are kept (default: $XDG_CACHE_HOME/hnclip-workbench)");
  if (with_json) cmd->add_flag("--json", o.json, "machine-readable output on stdout");
}

}  // namespace hnclip::cli

#pragma once
// Shared by the hnclip subcommands: exit codes, the usage-error type, default paths, the stop
// flag raised by Ctrl-C, and JSON shapes of results.

#include <atomic>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "eval/retrieval_result.h"
#include "job/training_job.h"

namespace hnclip::cli {

constexpr int kExitOk = 0;
constexpr int kExitRuntime = 1;    // the work failed (I/O, a failed run, a bad file's content)
constexpr int kExitUsage = 2;      // the command line was wrong (flags, values, unknown ids)
constexpr int kExitStopped = 130;  // stopped by Ctrl-C (128 + SIGINT), the run kept as `stopped`

// The name column of `runs` and `experiments`: as wide as the longest name up to this many
// characters (an experiment's runs differ only at the end of their names); a longer name ends in
// "…".
constexpr size_t kMaxNameColumn = 48;
// The test-set column of `runs`: wider, since what matters is at the end of a test set, after its
// root ("… / test (20 of 162 images trained on)"), and a long root is cut in the middle.
constexpr size_t kMaxTestSetColumn = 64;

// A command-line mistake found after parsing (e.g. a run id that does not exist).
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Options every subcommand takes.
struct CommonOptions {
  std::string database;   // --db
  std::string cache_dir;  // --cache-dir
  bool json = false;      // --json
  JobPaths paths() const;
  // As paths(), for a command that reads what others stored (runs, show, probes, eval, export,
  // experiments, experiment): a --db that names no file is refused (UsageError). Opened, it became
  // a new empty database, and `runs --db runz.db` listed nothing instead of naming the mistake.
  JobPaths stored_paths() const;
};

// Set by SIGINT/SIGTERM; a second signal kills the process the default way.
std::atomic<bool>& stop_flag();
void install_stop_handlers();

// {"R@1": .., "R@5": .., ...} in percent.
nlohmann::json recall_json(const RetrievalResult& r);
// One line, stderr: "hnclip: <message>" with newlines folded.
void print_error(const std::string& message);

}  // namespace hnclip::cli

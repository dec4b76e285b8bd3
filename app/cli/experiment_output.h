#pragma once
// How the CLI shows an experiment: its progress on stderr while it runs (one line per run started
// or ended, and a status line with the remaining-time estimate every few seconds), and its table
// on stdout in the form asked for.

#include <cstdint>
#include <string>

#include "job/experiment_runner.h"
#include "job/workbench_paths.h"

namespace hnclip::cli {

enum class ReportFormat { kText, kJson, kCsv, kLatex };

// Throws UsageError when more than one of the flags is set.
ReportFormat report_format(bool json, bool csv, bool latex);

// A progress callback that writes to stderr (thread-safe: the runner serialises its calls).
ExperimentProgressCallback experiment_progress_printer();

// The experiment's table from the database, on stdout.
void print_experiment_report(const JobPaths& paths, int64_t experiment_id, ReportFormat format);

// Runs (or resumes) an experiment with Ctrl-C as cancel, then prints its table; the exit code:
// 0 finished, 1 some runs failed, 130 cancelled.
int run_experiment_to_end(int64_t experiment_id, const JobPaths& paths, ReportFormat format);

}  // namespace hnclip::cli

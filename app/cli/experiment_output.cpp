#include "experiment_output.h"

#include <cmath>
#include <cstdio>
#include <iostream>

#include "cli_support.h"
#include "experiment/experiment_report.h"
#include "experiment/experiment_results.h"
#include "store/run_store.h"

namespace hnclip::cli {

namespace {

std::string duration_text(double seconds) {
  if (std::isnan(seconds)) return "estimating";
  const long s = std::lround(seconds);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  } else {
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  }
  return buf;
}

}  // namespace

ReportFormat report_format(bool json, bool csv, bool latex) {
  if (json + csv + latex > 1) throw UsageError("--json, --csv and --latex exclude each other");
  return json ? ReportFormat::kJson : csv ? ReportFormat::kCsv : latex ? ReportFormat::kLatex
                                                                    : ReportFormat::kText;
}

ExperimentProgressCallback experiment_progress_printer() {
  return [](const ExperimentProgress& p) {
    if (!p.event.empty()) std::cerr << p.event << "\n";
    std::cerr << "[" << p.done << "/" << p.total << " done";
    if (p.failed > 0) std::cerr << ", " << p.failed << " failed";
    std::cerr << ", ETA " << duration_text(p.eta_seconds) << "]";
    for (const auto& c : p.current) std::cerr << " " << c << ";";
    std::cerr << std::endl;
  };
}

void print_experiment_report(const JobPaths& paths, int64_t experiment_id, ReportFormat format) {
  const RunStore store(paths.database);
  if (!store.find_experiment(experiment_id)) {
    throw UsageError("no experiment " + std::to_string(experiment_id) + " in " + paths.database);
  }
  const ExperimentResults results = experiment_results(store, experiment_id);
  switch (format) {
    case ReportFormat::kJson:
      std::cout << experiment_report_json(results).dump() << std::endl;
      break;
    case ReportFormat::kCsv:
      std::cout << experiment_report_csv(results) << std::flush;
      break;
    case ReportFormat::kLatex:
      std::cout << experiment_report_latex(results) << std::flush;
      break;
    case ReportFormat::kText:
      std::cout << experiment_report_text(results) << std::flush;
      break;
  }
}

int run_experiment_to_end(int64_t experiment_id, const JobPaths& paths, ReportFormat format) {
  install_stop_handlers();
  ExperimentRunner runner(experiment_id, paths,
                          [](const std::string& m) { std::cerr << m << std::endl; });
  const std::string status = runner.run(stop_flag(), nullptr, experiment_progress_printer());
  std::cerr << "experiment " << experiment_id << " " << status << std::endl;
  print_experiment_report(paths, experiment_id, format);
  if (status == kExperimentCancelled) return kExitStopped;
  if (status == kExperimentFinished) return kExitOk;
  return kExitRuntime;
}

}  // namespace hnclip::cli

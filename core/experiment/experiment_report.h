#pragma once
// ExperimentResults as text for a terminal, CSV, LaTeX (booktabs, best per column bold, second
// underlined, as Tables 1, 3 and A11) and JSON. Every form states the selection rule, the seeds,
// whether controls were included and the significance level. Plain values: any thread.

#include <string>

#include <nlohmann/json.hpp>

#include "experiment/experiment_results.h"

namespace hnclip {

std::string experiment_report_text(const ExperimentResults& r);
// CSV tables (cells, then comparisons, then — when runs were evaluated on other data — the
// transfer table), separated by one empty line, each with its header.
std::string experiment_report_csv(const ExperimentResults& r);
// Booktabs tables (cells, comparisons, transfer as in Tables A7 / A10) with captions that state
// the rule.
std::string experiment_report_latex(const ExperimentResults& r);
nlohmann::json experiment_report_json(const ExperimentResults& r);

// The controls sentence of a report ("controls: …" or the --no-controls warning).
std::string experiment_controls_text(const ExperimentResults& r);

}  // namespace hnclip

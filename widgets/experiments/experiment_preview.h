#pragma once
// ExperimentPreview: what starting an experiment would cost, shown in "New experiment…" before
// anything starts — its configurations and runs (the core's expansion, with its refusals), how
// many of them finished runs of the same configuration already fill, and an estimated time from
// the throughput measured on finished runs of the same benchmark and model in the store ("no
// estimate" without such a run: a guess from nothing would be a number without meaning).
// preview_experiment opens its own RunStore: any thread (the dialog calls it on a worker).

#include <limits>
#include <string>

#include "widgets/experiments/experiment_spec_for_qt.h"

namespace hnclip::gui {

struct ExperimentPreview {
  std::string error;  // the core's refusal (unknown key, refused value, > 200 runs …); "" = fine
  bool needs_confirmation = false;  // more than kMaxRunsWithoutConfirmation runs
  int cells = 0;
  int seeds = 0;
  int runs = 0;
  int reused = 0;         // slots that finished runs of the same configuration fill
  std::string selection;  // the resolved epoch-selection rule
  // Seconds to train the runs not reused, one after another, at the measured speed; NaN: none
  // measured.
  double estimated_seconds = std::numeric_limits<double>::quiet_NaN();
  int measured_runs = 0;  // finished runs the speed was measured on
  double seconds_per_image =
      std::numeric_limits<double>::quiet_NaN();  // median, evaluation included
};

ExperimentPreview preview_experiment(const hnclip::ExperimentSpec& spec, bool confirmed,
                                     const std::string& db_path);

}  // namespace hnclip::gui

#pragma once
// Which of two compared runs is A and which B on the Retrieval tab — a stated rule, not the order
// they were picked in: A is the control run (γ = 0: plain InfoNCE) when exactly one of the two is
// one, otherwise the earlier run (the lower id). So "A correct / B wrong" always reads "the
// baseline got it, the margins lost it" where a control is compared. Threading: pure functions.

#include <cstdint>
#include <utility>

#include <QString>

#include "widgets/common/run_summary.h"

namespace hnclip::gui {

// A run trained without margins (γ = 0) whose configuration could be read.
bool is_control_run(const RunSummary& run);

// (A, B) of runs x and y; a run without a summary (null) counts as no control.
std::pair<int64_t, int64_t> retrieval_ab_order(int64_t x, const RunSummary* x_summary, int64_t y,
                                               const RunSummary* y_summary);

// The rule in words, for the pickers' label and tooltips.
QString retrieval_ab_rule();

}  // namespace hnclip::gui

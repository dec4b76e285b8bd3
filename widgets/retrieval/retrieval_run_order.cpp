#include "widgets/retrieval/retrieval_run_order.h"

#include <QCoreApplication>

namespace hnclip::gui {

bool is_control_run(const RunSummary& run) { return run.config_readable && run.gamma == 0.0; }

std::pair<int64_t, int64_t> retrieval_ab_order(int64_t x, const RunSummary* x_summary, int64_t y,
                                               const RunSummary* y_summary) {
  const bool x_control = x_summary && is_control_run(*x_summary);
  const bool y_control = y_summary && is_control_run(*y_summary);
  if (x_control != y_control) return x_control ? std::make_pair(x, y) : std::make_pair(y, x);
  return x <= y ? std::make_pair(x, y) : std::make_pair(y, x);
}

QString retrieval_ab_rule() {
  return QCoreApplication::translate(
      "RetrievalRunPicker",
      "A is the control run (γ = 0) when exactly one of the two is one, otherwise the earlier run "
      "(lower id); the two are swapped to follow this rule whichever box you pick them in.");
}

}  // namespace hnclip::gui

#pragma once
// The Runs tab's Transfer page: the selected runs' evaluations on other data or splits (`hnclip
// eval ID --split shifted`, `--benchmark/--data`, `experiment eval`), one row per run, data, split
// and evaluated epoch, with R@K of both directions. A row on the run's own training split says so:
// its recall is of images the run trained on. No best is marked: the rows are on different data.
// GUI thread (a QStandardItemModel).

#include <vector>

#include <QStandardItemModel>

#include "widgets/common/run_summary.h"

namespace hnclip::gui {

class TransferTableModel {
 public:
  enum Column { ColRun, ColData, ColSplit, ColEpoch, ColImages, ColFirstRecall };

  // Replaces `model`'s rows with the transfer evaluations of `runs`, in the runs' order and each
  // run's stored order. The run cell holds the run id under Qt::UserRole.
  static void fill(QStandardItemModel* model, const std::vector<RunSummary>& runs);
  // How many evaluations `runs` hold in all.
  static int count(const std::vector<RunSummary>& runs);
};

}  // namespace hnclip::gui

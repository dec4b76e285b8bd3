#pragma once
// The recall table as the Runs and Retrieval tabs show it: an "Epoch" column, then R@K of both
// directions (t→i, i→t), right-aligned, the best value of each column in bold. Run names go into
// the vertical headers, which each tab labels its own way. GUI thread only.

#include <QFont>
#include <QStandardItemModel>

#include "widgets/common/recall_table.h"

namespace hnclip::gui {

// Replaces the model's rows and horizontal headers with `table` (nothing when it has no rows).
// `font` is the view's font; best values get its bold variant.
void fill_recall_model(QStandardItemModel* model, const RecallTable& table, const QFont& font);

}  // namespace hnclip::gui

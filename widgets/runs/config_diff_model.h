#pragma once
// fill_config_diff_model: a ConfigDiff's rows as the Runs tab's comparison table — one column per
// run (its name and colour swatch), one row per key (bold when the runs differ), cells that
// disagree with the first run tinted with the palette's highlight, absent keys as a dimmed "—".
// Qt::UserRole holds "differs" on cells and on row headers (tests read it). GUI thread.

#include <vector>

#include <QIcon>
#include <QString>

#include "widgets/runs/config_diff.h"

class QFont;
class QPalette;
class QStandardItemModel;

namespace hnclip::gui {

struct ConfigDiffColumn {
  QString label;
  QIcon swatch;
};

void fill_config_diff_model(QStandardItemModel* model, const std::vector<ConfigDiffColumn>& columns,
                            const std::vector<ConfigDiffRow>& rows, const QPalette& palette,
                            const QFont& font);

}  // namespace hnclip::gui

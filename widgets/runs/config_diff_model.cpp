#include "widgets/runs/config_diff_model.h"

#include <QFont>
#include <QPalette>
#include <QStandardItemModel>

namespace hnclip::gui {
namespace {

constexpr int kDiffHighlightPercent = 35;  // share of the palette highlight in a differing cell
constexpr double kAbsentAlpha = 0.5;       // "—" of a key a run does not have: dimmed text

// A blend of two palette colours, so the highlight follows light and dark themes.
QColor mix(const QColor& a, const QColor& b, int percent_a) {
  const auto ch = [&](int x, int y) { return (x * percent_a + y * (100 - percent_a)) / 100; };
  return QColor(ch(a.red(), b.red()), ch(a.green(), b.green()), ch(a.blue(), b.blue()));
}

}  // namespace

void fill_config_diff_model(QStandardItemModel* model, const std::vector<ConfigDiffColumn>& columns,
                            const std::vector<ConfigDiffRow>& rows, const QPalette& palette,
                            const QFont& font) {
  model->setColumnCount(static_cast<int>(columns.size()));
  for (size_t c = 0; c < columns.size(); ++c) {
    auto* header = new QStandardItem(columns[c].label);
    header->setIcon(columns[c].swatch);
    model->setHorizontalHeaderItem(static_cast<int>(c), header);
  }
  const QColor highlight =
      mix(palette.color(QPalette::Highlight), palette.color(QPalette::Base), kDiffHighlightPercent);
  for (const auto& row : rows) {
    QList<QStandardItem*> items;
    for (size_t c = 0; c < row.values.size(); ++c) {
      const auto& value = row.values[c];
      auto* item = new QStandardItem(value ? QString::fromStdString(*value) : QStringLiteral("—"));
      if (!value) {
        QColor dim = palette.color(QPalette::Text);
        dim.setAlphaF(kAbsentAlpha);
        item->setForeground(dim);
      }
      // Cells that disagree with the first run's value; the key of a differing row is bold.
      const bool differs = row.differs_from_first[c];
      if (differs) item->setData(highlight, Qt::BackgroundRole);
      item->setData(differs, Qt::UserRole);
      items.append(item);
    }
    model->appendRow(items);
    auto* key = new QStandardItem(QString::fromStdString(row.key));
    key->setData(row.differs, Qt::UserRole);
    if (row.differs) {
      QFont f = font;
      f.setBold(true);
      key->setFont(f);
    }
    model->setVerticalHeaderItem(model->rowCount() - 1, key);
  }
}

}  // namespace hnclip::gui

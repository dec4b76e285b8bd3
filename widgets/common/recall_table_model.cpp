#include "widgets/common/recall_table_model.h"

#include <QList>
#include <QStandardItem>

namespace hnclip::gui {

void fill_recall_model(QStandardItemModel* model, const RecallTable& table, const QFont& font) {
  model->clear();
  const auto& rows = table.rows();
  if (rows.empty()) return;
  model->setColumnCount(1 + RecallTable::kValueColumns);
  model->setHorizontalHeaderItem(0, new QStandardItem(QObject::tr("Epoch")));
  for (int c = 0; c < RecallTable::kValueColumns; ++c)
    model->setHorizontalHeaderItem(
        1 + c,
        new QStandardItem((c < RecallTable::kKCount ? QObject::tr("t→i ") : QObject::tr("i→t ")) +
                          RecallTable::columnTitle(c)));
  QFont bold = font;
  bold.setBold(true);
  for (size_t r = 0; r < rows.size(); ++r) {
    QList<QStandardItem*> items;
    items.append(new QStandardItem(rows[r].start        ? QObject::tr("0 (start)")
                                   : rows[r].epoch >= 0 ? QString::number(rows[r].epoch)
                                                        : QString()));
    for (int c = 0; c < RecallTable::kValueColumns; ++c) {
      auto* item = new QStandardItem(RecallTable::formatValue(rows[r].values[c]));
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (table.isBest(static_cast<int>(r), c)) item->setFont(bold);
      items.append(item);
    }
    model->appendRow(items);
  }
}

}  // namespace hnclip::gui

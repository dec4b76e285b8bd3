#include "widgets/runs/transfer_table_model.h"

#include <cmath>

#include <QList>
#include <QObject>
#include <QStandardItem>

#include "widgets/common/recall_table.h"
#include "widgets/common/run_label.h"

namespace hnclip::gui {

int TransferTableModel::count(const std::vector<RunSummary>& runs) {
  int n = 0;
  for (const auto& s : runs) n += static_cast<int>(s.transfers.size());
  return n;
}

void TransferTableModel::fill(QStandardItemModel* model, const std::vector<RunSummary>& runs) {
  model->clear();
  QStringList headers = {QObject::tr("Run"), QObject::tr("Data"), QObject::tr("Split"),
                         QObject::tr("Epoch"), QObject::tr("Images")};
  for (int c = 0; c < RecallTable::kValueColumns; ++c)
    headers << (c < RecallTable::kKCount ? QObject::tr("t→i ") : QObject::tr("i→t ")) +
                   RecallTable::columnTitle(c);
  model->setHorizontalHeaderLabels(headers);
  const auto number = [](const QString& text) {
    auto* item = new QStandardItem(text);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
  };
  for (const auto& s : runs) {
    for (const auto& e : s.transfers) {
      QList<QStandardItem*> items;
      auto* run = new QStandardItem(run_label(s.record.id, s.record.name));
      run->setData(QVariant::fromValue<qlonglong>(s.record.id), Qt::UserRole);
      items << run << new QStandardItem(QString::fromStdString(e.benchmark));
      auto* split = new QStandardItem(QString::fromStdString(e.split));
      if (e.training_split) {
        split->setText(QObject::tr("%1 (its training split)").arg(split->text()));
        split->setToolTip(
            QObject::tr("The run trained on these images: their recall is not transfer."));
      }
      auto* images = number(QObject::tr("%1 (%2 captions)").arg(e.images).arg(e.captions));
      if (e.training_images && *e.training_images > 0) {
        images->setText(
            QObject::tr("%1, %2 trained on").arg(images->text()).arg(*e.training_images));
        images->setToolTip(QObject::tr("%1 of these images are the run's own training images "
                                       "(the same files): their recall is not transfer.")
                               .arg(*e.training_images));
      }
      // Epoch 0 is the run's starting model (eval --epoch 0: the zero-shot row).
      items << split << number(e.epoch == 0 ? QObject::tr("0 (start)") : QString::number(e.epoch))
            << images;
      for (int c = 0; c < RecallTable::kValueColumns; ++c) {
        double value = std::nan("");
        const auto dir = e.recall.find(RecallTable::direction(c));
        if (dir != e.recall.end()) {
          const auto k = dir->second.find(RecallTable::k(c));
          if (k != dir->second.end()) value = k->second;
        }
        items << number(RecallTable::formatValue(value));
      }
      model->appendRow(items);
    }
  }
}

}  // namespace hnclip::gui

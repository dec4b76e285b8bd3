#pragma once
// ExperimentListModel: every experiment of the store as a row — id, name, status, progress
// (finished / total runs, with failed and reused runs named) and creation time. A poll that
// brings the same experiments in the same order changes only the rows that differ
// (dataChanged), so the view's selection and scroll position survive the refreshes that keep an
// experiment started from the CLI moving in the window. GUI thread only.

#include <cstdint>
#include <vector>

#include <QAbstractTableModel>

#include "widgets/experiments/experiment_snapshot.h"

namespace hnclip::gui {

class ExperimentListModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { kId, kName, kStatus, kProgress, kCreated, kColumnCount };
  static constexpr int kIdRole = Qt::UserRole + 1;        // qint64 experiment id
  static constexpr int kProgressRole = Qt::UserRole + 2;  // double, 0..1 of runs finished

  explicit ExperimentListModel(QObject* parent = nullptr);

  void setEntries(std::vector<ExperimentListEntry> entries);
  const std::vector<ExperimentListEntry>& entries() const { return entries_; }
  // The row of experiment `id`, -1 when it is not listed.
  int rowOf(int64_t id) const;
  const ExperimentListEntry* entry(int64_t id) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  // "5/8 runs (1 failed, 2 reused)".
  static QString progressText(const ExperimentListEntry& e);

 private:
  std::vector<ExperimentListEntry> entries_;
};

}  // namespace hnclip::gui

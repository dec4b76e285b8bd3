#pragma once
// RunTableModel: one row per run of the store (RunSummary values, loaded elsewhere), for the Runs
// tab and the run-list dock. Qt::UserRole (SortRole) gives each column's value in its own type
// (numbers as doubles, dates as QDateTime) for sorting; RunIdRole gives the run id in any column.
// GUI thread only.

#include <cstdint>
#include <vector>

#include <QAbstractTableModel>
#include <QList>

#include "widgets/common/run_summary.h"

namespace hnclip::gui {

class RunTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    ColName,
    ColStatus,
    ColBenchmark,  // the test set (RunTestSet::label): benchmark, size, seed or folder, split
    ColFramework,  // sorting by it groups a sweep's runs by framework
    ColGamma,
    ColGbar,
    ColEpochs,
    ColStartR1T2I,  // epoch 0: the starting checkpoint
    ColBestR1T2I,   // the best fine-tuned epoch (train/best_epoch.h)
    ColStartR1I2T,
    ColBestR1I2T,
    ColSolved,  // solved fraction of every step, first / last epoch
    ColDuration,
    ColCreated,
    ColTags,
    ColumnCount
  };
  enum Role {
    SortRole = Qt::UserRole,  // typed value for sorting
    RunIdRole,                // qint64 run id
    FilterRole,               // column 0: "name benchmark status tags", what the filter matches
    StatusRole,               // the status name ("running", ...)
  };

  explicit RunTableModel(QObject* parent = nullptr);

  // Replaces the rows by `runs` (any order) with the fewest resets: rows of runs that are gone are
  // removed, new runs inserted, changed rows reported by dataChanged, so views keep selection and
  // scroll position. Only when the surviving runs change their relative order is it a full reset.
  void setRuns(std::vector<RunSummary> runs);
  const std::vector<RunSummary>& runs() const { return runs_; }
  const RunSummary* run(int64_t id) const;  // nullptr when not listed
  int rowOfRun(int64_t id) const;           // -1 when not listed
  // Running runs' duration grows with the clock: repaints just that column of those rows.
  void refreshRunningDurations();

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  QVariant display(const RunSummary& s, int column) const;
  QVariant sortValue(const RunSummary& s, int column) const;
  std::vector<RunSummary> runs_;
};

// "1 h 02 min", "3 min 05 s", "42 s" for a duration in milliseconds; "" for < 0.
QString format_duration_ms(int64_t ms);

}  // namespace hnclip::gui

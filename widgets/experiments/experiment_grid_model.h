#pragma once
// ExperimentGridModel: an experiment's results grid — one row per cell (configuration), columns
// role, configuration, seeds with a result, R@1 of both directions as mean ± std over seeds, and
// the paired difference of R@1 to each of its controls (paired γ = 0, learnt scale, strongest
// simple control) with its significance mark, then — for every benchmark / split the runs were
// also evaluated on (`hnclip experiment eval`) — that transfer target's R@1 both directions. Controls are marked (role text, italic, tinted);
// R@1 and Δ cells of method rows are coloured by the difference to the control (green better,
// red worse); per R@1 column the best mean is bold and the second underlined, as the paper's
// tables. A new snapshot of the same experiment updates the cells in place (dataChanged), so the
// view's selection survives the refreshes that fill the grid as runs finish.
// GUI thread only (a Qt model); the snapshot it shows is a plain value.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>

#include <QAbstractTableModel>
#include <QList>

#include "experiment/experiment_results.h"

namespace hnclip::gui {

class ExperimentGridModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    kRole,
    kConfiguration,
    kSeeds,
    kR1T2i,
    kR1I2t,
    kDeltaPairedT2i,
    kDeltaPairedI2t,
    kDeltaLearntT2i,
    kDeltaLearntI2t,
    kDeltaStrongestT2i,
    kDeltaStrongestI2t,
    kColumnCount  // the fixed columns; two per transfer target follow (columnCount())
  };
  enum Role {
    kRunIdsRole = Qt::UserRole + 1,  // QVariantList of the row's run ids (seed order, no empties)
    kCellRole,                       // the cell index
    kIsControlRole,                  // bool
    kValueRole,                      // the number behind an R@1 / Δ cell (double; NaN: none)
  };
  // Differences of this many R@1 points or more get the strongest colour.
  static constexpr double kColourSaturationPoints = 3.0;

  explicit ExperimentGridModel(QObject* parent = nullptr);

  void setResults(const hnclip::ExperimentResults& results);
  void clear();
  const hnclip::ExperimentResults& results() const { return results_; }
  int64_t experimentId() const { return results_.experiment.id; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  // The row's runs (every seed that has one), in seed order.
  QList<int64_t> runIds(int row) const;
  // For a method row: (control run, method run) of the same seed — the paired control when the
  // experiment has one, else the strongest — the first seed where both runs have a result.
  std::optional<std::pair<int64_t, int64_t>> controlComparisonRuns(int row) const;
  // The comparison of `row`'s cell against the control of `kind` ("paired", "learnt scale",
  // "strongest"); null when it has none.
  const hnclip::ControlComparison* comparison(int row, const char* kind) const;
  // The transfer target a column beyond the fixed ones shows, and its direction; null otherwise.
  const hnclip::TransferColumn* transferColumn(int column, int* direction = nullptr) const;
  // "mean ± std" of a summary at two decimals ("" without values).
  static QString meanStdText(const hnclip::SeedSummary& s);
  // "+1.23 ± 0.45 *" (the star: p below the significance level).
  static QString deltaText(const hnclip::PairedComparison& c);

 private:
  QVariant display(int row, int column) const;
  QVariant toolTip(int row, int column) const;
  QVariant background(int row, int column) const;
  QVariant font(int row, int column) const;
  double value(int row, int column) const;
  // -1 no mark, 0 best (bold), 1 second (underlined) of an R@1 column, among the cells of the
  // row's test set (CellResult::test_set: recall on other data does not compare).
  int rank(int row, int column) const;
  void computeRanks();

  hnclip::ExperimentResults results_;
  // Per test set: rounded R@1 means per direction, best and second (NaN when absent).
  std::map<std::string, std::array<std::array<double, 2>, 2>> ranks_;
};

}  // namespace hnclip::gui

#pragma once
// RecallTable: runs × (R@1/5/10/25/50 text→image, then image→text) at each run's reported epoch,
// optionally with the starting checkpoints' rows ("start", epoch 0) as the reference, the best
// fine-tuned value of every column marked (start rows never are; nothing is when the runs were
// tested on different data: their recall is not comparable), and its CSV and LaTeX (booktabs)
// renderings.
// Plain values (QtCore strings only): any thread.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <QString>

#include "widgets/common/run_summary.h"

namespace hnclip::gui {

class RecallTable {
 public:
  static constexpr int kKCount = 5;
  static constexpr std::array<int, kKCount> kKs = {1, 5, 10, 25, 50};
  static constexpr int kValueColumns = 2 * kKCount;  // t2i K..., then i2t K...
  static constexpr int kDecimals = 2;                // shown and compared at this precision

  struct Row {
    int64_t run_id = 0;
    std::string run_name;
    int epoch = -1;                              // -1 = nothing evaluated
    std::array<double, kValueColumns> values{};  // percent; NaN = not stored
    bool start = false;          // a starting checkpoint's row (epoch 0): a reference, never a best
    std::string test_set;        // RunTestSet::key of the data it was measured on
    std::string test_set_label;  // RunTestSet::label: the same, for people
  };

  explicit RecallTable(std::vector<Row> rows);
  enum class StartRows { Omit, Include };
  // One row per summary, at its report_epoch, in the given order. With StartRows::Include, first
  // one "start" row per distinct epoch-0 score (runs fine-tuned from one checkpoint share one,
  // named "start (runs 3, 4)", run_id 0 when shared; only runs on one test set share a row).
  static RecallTable fromSummaries(const std::vector<RunSummary>& runs,
                                   StartRows start = StartRows::Omit);

  const std::vector<Row>& rows() const { return rows_; }
  // "R@1" ... for a value column; direction() is "t2i" for the first kKCount columns.
  static QString columnTitle(int column);
  static std::string direction(int column);
  static int k(int column);
  // True when row's value is the column's maximum over the non-start rows at kDecimals (ties: all
  // of them); never for a start row, and never when the table is not comparable().
  bool isBest(int row, int column) const;
  // False when the non-start rows were measured on more than one test set.
  bool comparable() const { return comparable_; }
  // The value as shown: kDecimals decimals, "" when missing.
  static QString formatValue(double value);

  // Header "run,epoch,test_set,t2i_R@1,...,i2t_R@50", one line per run, "\n" line ends; text
  // quoted (RFC 4180) when it holds a comma, quote or line break; missing values are empty cells.
  // The test set is always there: a row's numbers mean nothing without the data they came from.
  QString toCsv() const;
  // A booktabs tabular: grouped Text→Image / Image→Text headers, best values in \textbf{},
  // missing values "--", LaTeX special characters of run names escaped. When the runs were tested
  // on different data (!comparable()), a "Test set" column after the epoch says on which.
  QString toLatex() const;

 private:
  std::vector<Row> rows_;
  std::array<double, kValueColumns> best_{};  // NaN when a column has no value
  bool comparable_ = true;
};

// Escapes \ & % $ # _ { } ~ ^ for LaTeX text mode.
QString latex_escape(const QString& text);

}  // namespace hnclip::gui

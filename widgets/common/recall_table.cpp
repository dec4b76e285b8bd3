#include "widgets/common/recall_table.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QStringList>

#include "train/best_epoch.h"
#include "widgets/common/csv_field.h"
#include "widgets/common/run_label.h"

namespace hnclip::gui {
namespace {
double rounded(double v) {
  const double scale = std::pow(10.0, RecallTable::kDecimals);
  return std::round(v * scale) / scale;
}

// Equal at the shown precision, missing where the other is missing.
bool same_values(const std::array<double, RecallTable::kValueColumns>& a,
                 const std::array<double, RecallTable::kValueColumns>& b) {
  for (int c = 0; c < RecallTable::kValueColumns; ++c) {
    if (std::isnan(a[c]) != std::isnan(b[c])) return false;
    if (!std::isnan(a[c]) && rounded(a[c]) != rounded(b[c])) return false;
  }
  return true;
}

}  // namespace

RecallTable::RecallTable(std::vector<Row> rows) : rows_(std::move(rows)) {
  best_.fill(std::numeric_limits<double>::quiet_NaN());
  const Row* first = nullptr;
  for (const auto& row : rows_) {
    if (row.start) continue;
    if (!first) first = &row;
    comparable_ = comparable_ && row.test_set == first->test_set;
  }
  if (!comparable_) return;  // no best across test sets
  for (const auto& row : rows_)
    for (int c = 0; c < kValueColumns && !row.start; ++c) {
      const double v = row.values[c];
      if (!std::isnan(v) && (std::isnan(best_[c]) || rounded(v) > best_[c])) best_[c] = rounded(v);
    }
}

RecallTable RecallTable::fromSummaries(const std::vector<RunSummary>& runs, StartRows start) {
  std::vector<Row> rows;
  std::vector<std::vector<int64_t>> start_runs;  // per start row: the runs sharing it
  for (const auto& s : runs) {
    if (start == StartRows::Omit) break;
    Row row;
    row.start = true;
    row.epoch = kStartEpoch;
    row.test_set = s.test_set.key;
    row.test_set_label = s.test_set.label;
    bool any = false;
    for (int c = 0; c < kValueColumns; ++c) {
      row.values[c] = s.recall(kStartEpoch, direction(c), k(c));
      any = any || !std::isnan(row.values[c]);
    }
    if (!any) continue;
    size_t i = 0;
    while (i < rows.size() &&
           (rows[i].test_set != row.test_set || !same_values(rows[i].values, row.values)))
      ++i;
    if (i == rows.size()) {
      rows.push_back(row);
      start_runs.emplace_back();
    }
    start_runs[i].push_back(s.record.id);
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    std::sort(start_runs[i].begin(), start_runs[i].end());  // "runs 1, 2" whatever the order
    QStringList ids;
    for (int64_t id : start_runs[i]) ids << QString::number(id);
    rows[i].run_id = start_runs[i].size() == 1 ? start_runs[i][0] : 0;
    rows[i].run_name = QStringLiteral("start (%1 %2)")
                           .arg(ids.size() == 1 ? QStringLiteral("run") : QStringLiteral("runs"),
                                ids.join(QStringLiteral(", ")))
                           .toStdString();
  }
  for (const auto& s : runs) {
    Row row;
    row.run_id = s.record.id;
    row.run_name = run_label(s.record.id, s.record.name).toStdString();
    row.epoch = s.report_epoch;
    row.test_set = s.test_set.key;
    row.test_set_label = s.test_set.label;
    for (int c = 0; c < kValueColumns; ++c)
      row.values[c] = s.report_epoch < 0 ? std::numeric_limits<double>::quiet_NaN()
                                         : s.recall(s.report_epoch, direction(c), k(c));
    rows.push_back(std::move(row));
  }
  return RecallTable(std::move(rows));
}

QString RecallTable::columnTitle(int column) { return QStringLiteral("R@%1").arg(k(column)); }
std::string RecallTable::direction(int column) { return column < kKCount ? "t2i" : "i2t"; }
int RecallTable::k(int column) { return kKs[column % kKCount]; }

bool RecallTable::isBest(int row, int column) const {
  if (rows_.at(row).start) return false;
  const double v = rows_.at(row).values.at(column);
  return !std::isnan(v) && rounded(v) == best_[column];
}

QString RecallTable::formatValue(double value) {
  return std::isnan(value) ? QString() : QString::number(value, 'f', kDecimals);
}

QString RecallTable::toCsv() const {
  QString out = QStringLiteral("run,epoch,test_set");
  for (int c = 0; c < kValueColumns; ++c)
    out += QStringLiteral(",%1_%2").arg(QString::fromStdString(direction(c)), columnTitle(c));
  out += QLatin1Char('\n');
  for (const auto& row : rows_) {
    out += csv_field(QString::fromStdString(row.run_name)) + QLatin1Char(',');
    if (row.epoch >= 0) out += QString::number(row.epoch);
    out += QLatin1Char(',') + csv_field(QString::fromStdString(row.test_set_label));
    for (int c = 0; c < kValueColumns; ++c) out += QLatin1Char(',') + formatValue(row.values[c]);
    out += QLatin1Char('\n');
  }
  return out;
}

QString RecallTable::toLatex() const {
  // Across test sets the table needs its data column; otherwise it would only repeat one value.
  const bool set_column = !comparable_;
  const int lead = set_column ? 3 : 2;  // columns before the values
  QString out = QStringLiteral("\\begin{tabular}{l") +
                (set_column ? QStringLiteral("l") : QString()) + QStringLiteral("r") +
                QString(kValueColumns, QLatin1Char('r')) + QStringLiteral("}\n\\toprule\n");
  out += QString(QStringLiteral(" &")).repeated(lead - 1) +
         QStringLiteral(
             " & \\multicolumn{%1}{c}{Text$\\to$Image} & \\multicolumn{%1}{c}{Image$\\to$Text} "
             "\\\\\n")
             .arg(kKCount);
  out += QStringLiteral("\\cmidrule(lr){%1-%2} \\cmidrule(lr){%3-%4}\n")
             .arg(lead + 1)
             .arg(lead + kKCount)
             .arg(lead + kKCount + 1)
             .arg(lead + kValueColumns);
  out += set_column ? QStringLiteral("Run & Epoch & Test set") : QStringLiteral("Run & Epoch");
  for (int c = 0; c < kValueColumns; ++c) out += QStringLiteral(" & ") + columnTitle(c);
  out += QStringLiteral(" \\\\\n\\midrule\n");
  for (size_t r = 0; r < rows_.size(); ++r) {
    const auto& row = rows_[r];
    out += latex_escape(QString::fromStdString(row.run_name)) + QStringLiteral(" & ") +
           (row.epoch >= 0 ? QString::number(row.epoch) : QStringLiteral("--"));
    if (set_column)
      out += QStringLiteral(" & ") + latex_escape(QString::fromStdString(row.test_set_label));
    for (int c = 0; c < kValueColumns; ++c) {
      const QString v = formatValue(row.values[c]);
      out += QStringLiteral(" & ") + (v.isEmpty() ? QStringLiteral("--")
                                      : isBest(static_cast<int>(r), c)
                                          ? QStringLiteral("\\textbf{%1}").arg(v)
                                          : v);
    }
    out += QStringLiteral(" \\\\\n");
  }
  out += QStringLiteral("\\bottomrule\n\\end{tabular}\n");
  return out;
}

QString latex_escape(const QString& text) {
  QString out;
  for (const QChar ch : text) {
    switch (ch.unicode()) {
      case '\\':
        out += QStringLiteral("\\textbackslash{}");
        break;
      case '~':
        out += QStringLiteral("\\textasciitilde{}");
        break;
      case '^':
        out += QStringLiteral("\\textasciicircum{}");
        break;
      case '&':
      case '%':
      case '$':
      case '#':
      case '_':
      case '{':
      case '}':
        out += QLatin1Char('\\') + ch;
        break;
      default:
        out += ch;
    }
  }
  return out;
}

}  // namespace hnclip::gui

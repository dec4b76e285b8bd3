#include "widgets/common/recall_table.h"

#include "widgets/common/csv_field.h"

#include <cmath>
#include <limits>

namespace hnclip::gui {
namespace {
double rounded(double v) {
  const double scale = std::pow(10.0, RecallTable::kDecimals);
  return std::round(v * scale) / scale;
}

}  // namespace

RecallTable::RecallTable(std::vector<Row> rows) : rows_(std::move(rows)) {
  best_.fill(std::numeric_limits<double>::quiet_NaN());
  for (const auto& row : rows_)
    for (int c = 0; c < kValueColumns; ++c) {
      const double v = row.values[c];
      if (!std::isnan(v) && (std::isnan(best_[c]) || rounded(v) > best_[c])) best_[c] = rounded(v);
    }
}

RecallTable RecallTable::fromSummaries(const std::vector<RunSummary>& runs) {
  std::vector<Row> rows;
  for (const auto& s : runs) {
    Row row;
    row.run_id = s.record.id;
    row.run_name = s.record.name;
    row.epoch = s.report_epoch;
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
  const double v = rows_.at(row).values.at(column);
  return !std::isnan(v) && rounded(v) == best_[column];
}

QString RecallTable::formatValue(double value) {
  return std::isnan(value) ? QString() : QString::number(value, 'f', kDecimals);
}

QString RecallTable::toCsv() const {
  QString out = QStringLiteral("run,epoch");
  for (int c = 0; c < kValueColumns; ++c)
    out += QStringLiteral(",%1_%2").arg(QString::fromStdString(direction(c)), columnTitle(c));
  out += QLatin1Char('\n');
  for (const auto& row : rows_) {
    out += csv_field(QString::fromStdString(row.run_name)) + QLatin1Char(',');
    if (row.epoch >= 0) out += QString::number(row.epoch);
    for (int c = 0; c < kValueColumns; ++c) out += QLatin1Char(',') + formatValue(row.values[c]);
    out += QLatin1Char('\n');
  }
  return out;
}

QString RecallTable::toLatex() const {
  QString out = QStringLiteral("\\begin{tabular}{lr") + QString(kValueColumns, QLatin1Char('r')) +
                QStringLiteral("}\n\\toprule\n");
  out += QStringLiteral(
             " & & \\multicolumn{%1}{c}{Text$\\to$Image} & \\multicolumn{%1}{c}{Image$\\to$Text} "
             "\\\\\n")
             .arg(kKCount);
  out += QStringLiteral("\\cmidrule(lr){3-%1} \\cmidrule(lr){%2-%3}\n")
             .arg(2 + kKCount)
             .arg(3 + kKCount)
             .arg(2 + kValueColumns);
  out += QStringLiteral("Run & Epoch");
  for (int c = 0; c < kValueColumns; ++c) out += QStringLiteral(" & ") + columnTitle(c);
  out += QStringLiteral(" \\\\\n\\midrule\n");
  for (size_t r = 0; r < rows_.size(); ++r) {
    const auto& row = rows_[r];
    out += latex_escape(QString::fromStdString(row.run_name)) + QStringLiteral(" & ") +
           (row.epoch >= 0 ? QString::number(row.epoch) : QStringLiteral("--"));
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

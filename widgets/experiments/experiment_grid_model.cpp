#include "widgets/experiments/experiment_grid_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include <QBrush>
#include <QColor>
#include <QFont>

#include "widgets/experiments/experiment_spec_for_qt.h"

namespace hnclip::gui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kDecimals = 2;                   // as the CLI's tables
constexpr int kMinTintAlpha = 40;              // the faintest colour of a difference
constexpr int kMaxTintAlpha = 150;             // ... and the strongest (at the saturation)
const QColor kBetter(40, 170, 70);             // method above its control
const QColor kWorse(220, 60, 50);              // method below its control
const QColor kControlTint(120, 130, 160, 60);  // a control row's role and configuration

// Columns of the Δ block: (kind of comparison, direction).
struct DeltaColumn {
  const char* kind;
  int direction;
};
std::optional<DeltaColumn> delta_column(int column) {
  switch (column) {
    case ExperimentGridModel::kDeltaPairedT2i:
      return DeltaColumn{"paired", 0};
    case ExperimentGridModel::kDeltaPairedI2t:
      return DeltaColumn{"paired", 1};
    case ExperimentGridModel::kDeltaLearntT2i:
      return DeltaColumn{"learnt scale", 0};
    case ExperimentGridModel::kDeltaLearntI2t:
      return DeltaColumn{"learnt scale", 1};
    case ExperimentGridModel::kDeltaStrongestT2i:
      return DeltaColumn{"strongest", 0};
    case ExperimentGridModel::kDeltaStrongestI2t:
      return DeltaColumn{"strongest", 1};
    default:
      return std::nullopt;
  }
}

int r1_direction(int column) {
  return column == ExperimentGridModel::kR1T2i ? 0 : column == ExperimentGridModel::kR1I2t ? 1 : -1;
}

double rounded(double v) {
  const double scale = std::pow(10.0, kDecimals);
  return std::round(v * scale) / scale;
}

QString number(double v) { return QString::number(v, 'f', kDecimals); }

QString role_text(const std::string& role) {
  if (role == kRolePaired) return QObject::tr("control · paired γ 0");
  if (role == kRoleLearnableScale) return QObject::tr("control · learnt s");
  if (role == kRoleFixedScale) return QObject::tr("control · fixed s");
  if (role == kRoleBaseline) return QObject::tr("baseline");
  return QObject::tr("method");
}

// The background of a method − control difference: green above, red below, stronger with its
// size; none for NaN or a difference that shows as 0.00. Recall is 100·hits/N, so equal hits over
// the seeds can leave a residue of 1e-14, which must not read as "above the control".
QVariant tint(double difference) {
  if (std::isnan(difference) || rounded(difference) == 0.0) return {};
  const double share =
      std::min(1.0, std::abs(difference) / ExperimentGridModel::kColourSaturationPoints);
  QColor c = difference > 0 ? kBetter : kWorse;
  c.setAlpha(kMinTintAlpha + static_cast<int>(share * (kMaxTintAlpha - kMinTintAlpha)));
  return QBrush(c);
}

// A comparison's colour: none from a single pair of seeds, which has no spread and no test (a
// colour would read as a result where there is one draw).
QVariant tint(const PairedComparison& c) {
  if (c.n < 2) return {};
  return tint(c.mean_diff);
}

// A difference as shown: signed, at the tables' precision, and "+0.00" (never "-0.00") for one
// that rounds to nothing.
QString signed_number(double v) {
  const double r = rounded(v) + 0.0;  // + 0.0 turns -0.0 into 0.0
  return (r >= 0 ? QStringLiteral("+") : QString()) + number(r);
}

QString p_text(double p) {
  if (std::isnan(p)) return QStringLiteral("–");
  return p < 1e-4 ? QString::number(p, 'e', 1) : QString::number(p, 'f', 4);
}

}  // namespace

ExperimentGridModel::ExperimentGridModel(QObject* parent) : QAbstractTableModel(parent) {}

void ExperimentGridModel::setResults(const hnclip::ExperimentResults& results) {
  const bool same_shape = results.experiment.id == results_.experiment.id &&
                          results.cells.size() == results_.cells.size() &&
                          results.transfers.size() == results_.transfers.size() &&
                          !results_.cells.empty();
  if (!same_shape) beginResetModel();
  results_ = results;
  computeRanks();
  if (!same_shape) {
    endResetModel();
    return;
  }
  emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

void ExperimentGridModel::clear() {
  beginResetModel();
  results_ = {};
  computeRanks();
  endResetModel();
}

int ExperimentGridModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(results_.cells.size());
}

int ExperimentGridModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount + 2 * static_cast<int>(results_.transfers.size());
}

const TransferColumn* ExperimentGridModel::transferColumn(int column, int* direction) const {
  const int t = column - kColumnCount;
  if (t < 0 || t / 2 >= static_cast<int>(results_.transfers.size())) return nullptr;
  if (direction) *direction = t % 2;
  return &results_.transfers[static_cast<size_t>(t / 2)];
}

QVariant ExperimentGridModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal)
    return QAbstractTableModel::headerData(section, orientation, role);
  int direction = 0;
  if (const auto* t = transferColumn(section, &direction)) {
    if (role == Qt::DisplayRole)
      return QStringLiteral("%1 %2").arg(QString::fromStdString(t->split),
                                         direction == 0 ? tr("t→i") : tr("i→t"));
    if (role == Qt::ToolTipRole) {
      QString tip =
          tr("Transfer: R@1 (%) of each run's selected checkpoint on %1 / %2 (%3 images), "
             "mean ± sample std over the seeds evaluated there (hnclip experiment eval)")
              .arg(QString::fromStdString(t->benchmark), QString::fromStdString(t->split))
              .arg(t->images);
      if (t->training_images && *t->training_images > 0)
        tip += tr(". %1 of these images are training images of its runs: their recall is not "
                  "transfer")
                   .arg(*t->training_images);
      return tip;
    }
    return {};
  }
  if (role == Qt::DisplayRole) {
    switch (section) {
      case kRole:
        return tr("Role");
      case kConfiguration:
        return tr("Configuration");
      case kSeeds:
        return tr("Seeds");
      case kR1T2i:
        return tr("R@1 t→i");
      case kR1I2t:
        return tr("R@1 i→t");
      case kDeltaPairedT2i:
        return tr("Δ paired t→i");
      case kDeltaPairedI2t:
        return tr("Δ paired i→t");
      case kDeltaLearntT2i:
        return tr("Δ learnt s t→i");
      case kDeltaLearntI2t:
        return tr("Δ learnt s i→t");
      case kDeltaStrongestT2i:
        return tr("Δ strongest t→i");
      case kDeltaStrongestI2t:
        return tr("Δ strongest i→t");
      default:
        return {};
    }
  }
  if (role == Qt::ToolTipRole) {
    if (section == kSeeds) return tr("Seeds with a result / seeds of the cell");
    if (section == kR1T2i || section == kR1I2t)
      return tr(
          "Test R@1 (%) at the selected epoch: mean ± sample std over seeds; best bold, "
          "second underlined among the cells tested on the same data");
    if (delta_column(section))
      return tr("Method − control R@1 (points), paired by seed: mean ± std; * significant at "
                "α = %1 (paired t, two-sided)")
          .arg(kSignificanceLevel);
  }
  return {};
}

QVariant ExperimentGridModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
  const int row = index.row(), column = index.column();
  const auto& cell = results_.cells[static_cast<size_t>(row)];
  switch (role) {
    case Qt::DisplayRole:
      return display(row, column);
    case Qt::ToolTipRole:
      return toolTip(row, column);
    case Qt::BackgroundRole:
      return background(row, column);
    case Qt::FontRole:
      return font(row, column);
    case Qt::TextAlignmentRole:
      return column >= kSeeds ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                              : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case kRunIdsRole: {
      QVariantList ids;
      for (int64_t id : runIds(row)) ids.append(QVariant::fromValue<qint64>(id));
      return ids;
    }
    case kCellRole:
      return cell.cell.cell;
    case kIsControlRole:
      return is_control_role(cell.cell.role);
    case kValueRole:
      return value(row, column);
    default:
      return {};
  }
}

const ControlComparison* ExperimentGridModel::comparison(int row, const char* kind) const {
  if (row < 0 || row >= rowCount()) return nullptr;
  const int cell = results_.cells[static_cast<size_t>(row)].cell.cell;
  for (const auto& c : results_.comparisons) {
    if (c.method_cell == cell && c.kind == kind) return &c;
  }
  return nullptr;
}

double ExperimentGridModel::value(int row, int column) const {
  const auto& cell = results_.cells[static_cast<size_t>(row)];
  int direction = 0;
  if (const auto* t = transferColumn(column, &direction))
    return t->r1[static_cast<size_t>(row)][static_cast<size_t>(direction)].mean;
  if (const int d = r1_direction(column); d >= 0) return cell.summary[d][0].mean;
  if (const auto dc = delta_column(column)) {
    const auto* c = comparison(row, dc->kind);
    return c ? c->r1[dc->direction].mean_diff : kNaN;
  }
  return kNaN;
}

QString ExperimentGridModel::meanStdText(const SeedSummary& s) {
  if (s.n == 0 || std::isnan(s.mean)) return {};
  if (std::isnan(s.std)) return number(s.mean);
  return QStringLiteral("%1 ± %2").arg(number(s.mean), number(s.std));
}

QString ExperimentGridModel::deltaText(const PairedComparison& c) {
  if (c.n == 0 || std::isnan(c.mean_diff)) return {};
  QString text = signed_number(c.mean_diff);
  if (!std::isnan(c.std_diff)) text += QStringLiteral(" ± ") + number(c.std_diff);
  if (c.n == 1) text += tr(" (1 seed)");
  if (is_significant(c.p_two_sided, kSignificanceLevel)) text += QStringLiteral(" *");
  return text;
}

QVariant ExperimentGridModel::display(int row, int column) const {
  const auto& cell = results_.cells[static_cast<size_t>(row)];
  switch (column) {
    case kRole:
      return role_text(cell.cell.role);
    case kConfiguration:
      return QString::fromStdString(cell.cell.label);
    case kSeeds:
      return QStringLiteral("%1/%2").arg(cell.finished).arg(static_cast<int>(cell.seeds.size()));
    default:
      break;
  }
  if (const int d = r1_direction(column); d >= 0) return meanStdText(cell.summary[d][0]);
  if (const auto dc = delta_column(column)) {
    const auto* c = comparison(row, dc->kind);
    return c ? deltaText(c->r1[dc->direction]) : QString();
  }
  int direction = 0;
  if (const auto* t = transferColumn(column, &direction))
    return meanStdText(t->r1[static_cast<size_t>(row)][static_cast<size_t>(direction)]);
  return {};
}

QVariant ExperimentGridModel::toolTip(int row, int column) const {
  const auto& cell = results_.cells[static_cast<size_t>(row)];
  if (column == kRole || column == kConfiguration || column == kSeeds) {
    QStringList lines{QString::fromStdString(cell.cell.label),
                      tr("settings: %1").arg(QString::fromStdString(cell.cell.settings_json))};
    for (const auto& s : cell.seeds) {
      QString line = tr("seed %1: ").arg(s.seed);
      if (s.run_id == 0) {
        line += tr("no run yet");
      } else {
        line += tr("run %1 (%2%3)")
                    .arg(s.run_id)
                    .arg(QString::fromStdString(s.run_status))
                    .arg(s.reused ? tr(", reused") : QString());
        if (s.epoch >= 0)
          line += tr(", epoch %1: R@1 %2 / %3")
                      .arg(s.epoch)
                      .arg(number(s.recall[0][0]), number(s.recall[1][0]));
      }
      lines << line;
    }
    return lines.join(QLatin1Char('\n'));
  }
  if (const int d = r1_direction(column); d >= 0) {
    const auto& s = cell.summary[d][0];
    return tr("%1 seeds with a result, %2 missing").arg(s.n).arg(s.missing);
  }
  if (const auto dc = delta_column(column)) {
    const auto* c = comparison(row, dc->kind);
    if (!c) return tr("No %1 control for this cell").arg(QString::fromLatin1(dc->kind));
    const auto& r = c->r1[dc->direction];
    const auto& control = results_.cells[static_cast<size_t>(c->control_cell)];
    QStringList lines{
        tr("against %1 (%2)")
            .arg(QString::fromStdString(control.cell.label), QString::fromLatin1(dc->kind)),
        tr("n %1 pairs, t %2, p %3 (two-sided), %4 improved, %5 worse")
            .arg(r.n)
            .arg(std::isnan(r.t) ? QStringLiteral("–") : QString::number(r.t, 'f', 2))
            .arg(p_text(r.p_two_sided))
            .arg(r.improved)
            .arg(r.worse)};
    if (r.n == 1)
      lines << tr(
          "no spread and no t-test: one seed pair is one draw, not a result (run more "
          "seeds)");
    if (r.n >= 2 && r.std_diff == 0.0)
      lines << tr("no t-test: every seed differs by the same amount, so t is undefined");
    QStringList mcnemar;
    for (double p : c->mcnemar_p[dc->direction]) mcnemar << p_text(p);
    lines << tr("McNemar p per seed: %1").arg(mcnemar.join(QStringLiteral(", ")));
    return lines.join(QLatin1Char('\n'));
  }
  return {};
}

QVariant ExperimentGridModel::background(int row, int column) const {
  const auto& cell = results_.cells[static_cast<size_t>(row)];
  if (is_control_role(cell.cell.role) && (column == kRole || column == kConfiguration))
    return QBrush(kControlTint);
  if (const auto dc = delta_column(column)) {
    const auto* c = comparison(row, dc->kind);
    return c ? tint(c->r1[dc->direction]) : QVariant();
  }
  if (const int d = r1_direction(column); d >= 0 && cell.cell.role == kRoleMethod) {
    // The method's own R@1 coloured by its difference to the strongest control (else paired).
    const auto* c = comparison(row, "strongest");
    if (!c) c = comparison(row, "paired");
    if (!c) return {};
    return tint(c->r1[d]);
  }
  return {};
}

QVariant ExperimentGridModel::font(int row, int column) const {
  const auto& cell = results_.cells[static_cast<size_t>(row)];
  QFont f;
  bool changed = false;
  if (is_control_role(cell.cell.role) && (column == kRole || column == kConfiguration)) {
    f.setItalic(true);
    changed = true;
  }
  const int r = rank(row, column);
  if (r >= 0) {
    f.setBold(r == 0);
    f.setUnderline(r == 1);
    changed = true;
  }
  return changed ? QVariant(f) : QVariant();
}

int ExperimentGridModel::rank(int row, int column) const {
  const int d = r1_direction(column);
  if (d < 0) return -1;
  const double v = results_.cells[static_cast<size_t>(row)].summary[d][0].mean;
  if (std::isnan(v)) return -1;
  const auto set = ranks_.find(results_.cells[static_cast<size_t>(row)].test_set);
  if (set == ranks_.end()) return -1;
  if (rounded(v) == set->second[d][0]) return 0;
  if (rounded(v) == set->second[d][1]) return 1;
  return -1;
}

void ExperimentGridModel::computeRanks() {
  ranks_.clear();
  for (const auto& cell : results_.cells) {
    if (ranks_.count(cell.test_set)) continue;
    auto& ranks = ranks_[cell.test_set];
    for (int d = 0; d < 2; ++d) {
      std::vector<double> values;
      for (const auto& c : results_.cells) {
        if (c.test_set == cell.test_set && !std::isnan(c.summary[d][0].mean))
          values.push_back(rounded(c.summary[d][0].mean));
      }
      std::sort(values.begin(), values.end(), std::greater<>());
      values.erase(std::unique(values.begin(), values.end()), values.end());
      ranks[d][0] = values.size() > 0 ? values[0] : kNaN;
      // One value is no ranking: a second mark needs at least two cells with different means.
      ranks[d][1] = values.size() > 1 ? values[1] : kNaN;
    }
  }
}

QList<int64_t> ExperimentGridModel::runIds(int row) const {
  QList<int64_t> ids;
  if (row < 0 || row >= rowCount()) return ids;
  for (const auto& s : results_.cells[static_cast<size_t>(row)].seeds) {
    if (s.run_id != 0) ids.append(s.run_id);
  }
  return ids;
}

std::optional<std::pair<int64_t, int64_t>> ExperimentGridModel::controlComparisonRuns(
    int row) const {
  const ControlComparison* c = comparison(row, "paired");
  if (!c) c = comparison(row, "strongest");
  if (!c) return std::nullopt;
  const auto& method = results_.cells[static_cast<size_t>(row)].seeds;
  const auto& control = results_.cells[static_cast<size_t>(c->control_cell)].seeds;
  for (size_t i = 0; i < method.size() && i < control.size(); ++i) {
    if (method[i].epoch >= 0 && control[i].epoch >= 0)
      return std::make_pair(control[i].run_id, method[i].run_id);
  }
  return std::nullopt;
}

}  // namespace hnclip::gui

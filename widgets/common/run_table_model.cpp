#include "widgets/common/run_table_model.h"

#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include <QApplication>
#include <QDateTime>
#include <QFont>
#include <QLocale>
#include <QPalette>
#include <QStyle>

#include "widgets/common/run_colors.h"
#include "widgets/common/run_label.h"

namespace hnclip::gui {
namespace {
constexpr double kDimmedAlpha = 0.6;  // runs that are not live: text colour, partly transparent

QString qs(const std::string& s) { return QString::fromStdString(s); }

// Milliseconds the run has been (or was) running; -1 when it has not started.
int64_t duration_ms(const RunRecord& r) {
  if (r.started_at_ms <= 0) return -1;
  if (r.finished_at_ms > 0) return std::max<int64_t>(0, r.finished_at_ms - r.started_at_ms);
  if (r.status == RunStatus::Running) return std::max<int64_t>(0, unix_time_ms() - r.started_at_ms);
  return -1;  // stopped/interrupted without a finish time: the length is unknown
}

QString format_recall(double v) { return std::isnan(v) ? QString() : QString::number(v, 'f', 2); }

QString format_percent(double fraction) {
  return std::isnan(fraction) ? QStringLiteral("–") : QString::number(100 * fraction, 'f', 0) + '%';
}

// "12% / 96%": the solved fraction of the first and the last epoch with steps; one value when
// they are the same epoch; "" when no step was recorded.
QString format_solved(const RunSummary& s) {
  if (s.solved_first_epoch < 0) return {};
  if (s.solved_first_epoch == s.solved_last_epoch) return format_percent(s.solved_first);
  return format_percent(s.solved_first) + QStringLiteral(" / ") + format_percent(s.solved_last);
}

QStyle::StandardPixmap status_icon(RunStatus s) {
  switch (s) {
    case RunStatus::Queued:
      return QStyle::SP_BrowserReload;
    case RunStatus::Running:
      return QStyle::SP_MediaPlay;
    case RunStatus::Finished:
      return QStyle::SP_DialogApplyButton;
    case RunStatus::Failed:
      return QStyle::SP_MessageBoxCritical;
    case RunStatus::Stopped:
      return QStyle::SP_MediaStop;
    case RunStatus::Interrupted:
      return QStyle::SP_MessageBoxWarning;
  }
  return QStyle::SP_CustomBase;
}
}  // namespace

QString format_duration_ms(int64_t ms) {
  if (ms < 0) return {};
  const int64_t s = ms / 1000;
  if (s >= 3600)
    return QStringLiteral("%1 h %2 min").arg(s / 3600).arg((s / 60) % 60, 2, 10, QLatin1Char('0'));
  if (s >= 60)
    return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
  return QStringLiteral("%1 s").arg(s);
}

RunTableModel::RunTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunTableModel::setRuns(std::vector<RunSummary> runs) {
  std::unordered_set<int64_t> incoming;
  for (const auto& s : runs) incoming.insert(s.record.id);

  // 1. Remove rows of runs that are gone, bottom-up in contiguous blocks.
  for (int row = static_cast<int>(runs_.size()) - 1; row >= 0;) {
    if (incoming.count(runs_[row].record.id)) {
      --row;
      continue;
    }
    int first = row;
    while (first > 0 && !incoming.count(runs_[first - 1].record.id)) --first;
    beginRemoveRows({}, first, row);
    runs_.erase(runs_.begin() + first, runs_.begin() + row + 1);
    endRemoveRows();
    row = first - 1;
  }

  // 2. The survivors must keep their relative order for an in-place merge; otherwise reset.
  std::unordered_map<int64_t, size_t> old_pos;
  for (size_t i = 0; i < runs_.size(); ++i) old_pos[runs_[i].record.id] = i;
  size_t expected = 0;
  bool same_order = true;
  for (const auto& s : runs) {
    const auto it = old_pos.find(s.record.id);
    if (it == old_pos.end()) continue;
    if (it->second != expected++) {
      same_order = false;
      break;
    }
  }
  if (!same_order) {
    beginResetModel();
    runs_ = std::move(runs);
    endResetModel();
    return;
  }

  // First load (or everything replaced): one insertion instead of one per run.
  if (runs_.empty()) {
    if (runs.empty()) return;
    beginInsertRows({}, 0, static_cast<int>(runs.size()) - 1);
    runs_ = std::move(runs);
    endInsertRows();
    return;
  }

  // 3. Merge: row i either is the same run (update in place) or a new run to insert at i.
  for (size_t i = 0; i < runs.size(); ++i) {
    const int row = static_cast<int>(i);
    if (i < runs_.size() && runs_[i].record.id == runs[i].record.id) {
      if (runs_[i] != runs[i]) {
        runs_[i] = std::move(runs[i]);
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
      }
      continue;
    }
    beginInsertRows({}, row, row);
    runs_.insert(runs_.begin() + row, std::move(runs[i]));
    endInsertRows();
  }
}

const RunSummary* RunTableModel::run(int64_t id) const {
  const int row = rowOfRun(id);
  return row < 0 ? nullptr : &runs_[row];
}

int RunTableModel::rowOfRun(int64_t id) const {
  for (size_t i = 0; i < runs_.size(); ++i)
    if (runs_[i].record.id == id) return static_cast<int>(i);
  return -1;
}

void RunTableModel::refreshRunningDurations() {
  for (size_t i = 0; i < runs_.size(); ++i)
    if (runs_[i].record.status == RunStatus::Running) {
      const QModelIndex ix = index(static_cast<int>(i), ColDuration);
      emit dataChanged(ix, ix, {Qt::DisplayRole, SortRole});
    }
}

int RunTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(runs_.size());
}

int RunTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunTableModel::display(const RunSummary& s, int column) const {
  const RunRecord& r = s.record;
  const QString unknown = QStringLiteral("?");
  switch (column) {
    case ColName:
      return run_label(r.id, r.name);
    case ColStatus:
      return qs(to_string(r.status));
    case ColBenchmark:
      // The test set, not only the benchmark's name: rows on different data look different.
      return s.config_readable ? qs(s.test_set.label) : unknown;
    case ColFramework:
      return s.config_readable ? qs(s.framework) : unknown;
    case ColGamma:
      return s.config_readable ? QString::number(s.gamma, 'g', 6) : unknown;
    case ColGbar:
      return s.config_readable ? qs(s.gbar) : unknown;
    case ColEpochs:
      return s.config_readable ? QString::number(s.epochs) : unknown;
    case ColStartR1T2I:
      return format_recall(s.start_r1_t2i);
    case ColBestR1T2I:
      return format_recall(s.best_r1_t2i);
    case ColStartR1I2T:
      return format_recall(s.start_r1_i2t);
    case ColBestR1I2T:
      return format_recall(s.best_r1_i2t);
    case ColSolved:
      return format_solved(s);
    case ColDuration:
      return format_duration_ms(duration_ms(r));
    case ColCreated:
      return QLocale().toString(QDateTime::fromMSecsSinceEpoch(r.created_at_ms),
                                QLocale::ShortFormat);
    case ColTags:
      return qs(r.tags);
  }
  return {};
}

QVariant RunTableModel::sortValue(const RunSummary& s, int column) const {
  const RunRecord& r = s.record;
  // Missing numbers sort below every real one (recall and γ are never negative).
  switch (column) {
    case ColName:
      return display(s, column).toString().toLower();
    case ColStatus:
      return qs(to_string(r.status));
    case ColBenchmark:
      return qs(s.test_set.label).toLower();
    case ColFramework:
      return qs(s.framework);
    case ColGamma:
      return s.config_readable ? s.gamma : -1.0;
    case ColGbar:
      return qs(s.gbar);
    case ColEpochs:
      return s.config_readable ? s.epochs : -1;
    case ColStartR1T2I:
      return std::isnan(s.start_r1_t2i) ? -1.0 : s.start_r1_t2i;
    case ColBestR1T2I:
      return std::isnan(s.best_r1_t2i) ? -1.0 : s.best_r1_t2i;
    case ColStartR1I2T:
      return std::isnan(s.start_r1_i2t) ? -1.0 : s.start_r1_i2t;
    case ColBestR1I2T:
      return std::isnan(s.best_r1_i2t) ? -1.0 : s.best_r1_i2t;
    case ColSolved:  // by the last epoch: how saturated the run ended
      return std::isnan(s.solved_last) ? -1.0 : s.solved_last;
    case ColDuration:
      return static_cast<qlonglong>(duration_ms(r));
    case ColCreated:
      return QDateTime::fromMSecsSinceEpoch(r.created_at_ms);
    case ColTags:
      return qs(r.tags).toLower();
  }
  return {};
}

QVariant RunTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const RunSummary& s = runs_[index.row()];
  const int column = index.column();
  switch (role) {
    case Qt::DisplayRole:
      return display(s, column);
    case SortRole:
      return sortValue(s, column);
    case RunIdRole:
      return static_cast<qlonglong>(s.record.id);
    case StatusRole:
      return qs(to_string(s.record.status));
    case FilterRole:
      if (column != ColName) return {};
      return QStringList{display(s, ColName).toString(), qs(s.test_set.label),
                         qs(to_string(s.record.status)), qs(s.record.tags)}
          .join(QLatin1Char(' '));
    case Qt::DecorationRole:
      if (column == ColName) return run_color(s.record.id);  // the delegate paints a swatch
      if (column == ColStatus)
        return QApplication::style()->standardIcon(status_icon(s.record.status));
      return {};
    case Qt::ForegroundRole:
      // Palette roles only, so dark themes stay readable: live runs stand out, dead ones recede.
      if (column != ColStatus) return {};
      if (s.record.status == RunStatus::Running)
        return QApplication::palette().brush(QPalette::Link);
      if (s.record.status == RunStatus::Interrupted || s.record.status == RunStatus::Stopped ||
          s.record.status == RunStatus::Queued) {
        QColor dim = QApplication::palette().color(QPalette::Text);
        dim.setAlphaF(kDimmedAlpha);
        return dim;
      }
      return {};
    case Qt::FontRole:
      if (column == ColStatus &&
          (s.record.status == RunStatus::Running || s.record.status == RunStatus::Failed)) {
        QFont f;
        f.setBold(true);
        return f;
      }
      return {};
    case Qt::ToolTipRole:
      if (column == ColStatus && !s.record.status_message.empty())
        return qs(s.record.status_message);
      if (column == ColName || column == ColBestR1T2I || column == ColBestR1I2T) {
        // The name in full first: narrow views (the dock) elide it.
        const QString name = column == ColName && !s.record.name.empty()
                                 ? qs(s.record.name) + QLatin1Char('\n')
                                 : QString();
        return name + QStringLiteral("run %1%2")
                          .arg(s.record.id)
                          .arg(s.report_epoch >= 0
                                   ? QStringLiteral(", best epoch %1").arg(s.report_epoch)
                                   : QStringLiteral(", no fine-tuned epoch evaluated yet"));
      }
      if (column == ColSolved && s.solved_first_epoch >= 0)
        return tr("Steps whose plain InfoNCE loss was below 1e-3: %1 in epoch %2, %3 in epoch %4")
            .arg(format_percent(s.solved_first))
            .arg(s.solved_first_epoch)
            .arg(format_percent(s.solved_last))
            .arg(s.solved_last_epoch);
      return {};
    case Qt::TextAlignmentRole:
      if (column == ColGamma || column == ColEpochs || column == ColStartR1T2I ||
          column == ColBestR1T2I || column == ColStartR1I2T || column == ColBestR1I2T ||
          column == ColSolved || column == ColDuration)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      return {};
  }
  return {};
}

QVariant RunTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
  if (role == Qt::DisplayRole) {
    switch (section) {
      case ColName:
        return tr("Run");
      case ColStatus:
        return tr("Status");
      case ColBenchmark:
        return tr("Test set");
      case ColFramework:
        return tr("Framework");
      case ColGamma:
        return QStringLiteral("γ");
      case ColGbar:
        return QStringLiteral("Ḡ mode");
      case ColEpochs:
        return tr("Epochs");
      case ColStartR1T2I:
        return tr("start R@1 t→i");
      case ColBestR1T2I:
        return tr("best R@1 t→i");
      case ColStartR1I2T:
        return tr("start R@1 i→t");
      case ColBestR1I2T:
        return tr("best R@1 i→t");
      case ColSolved:
        return tr("solved (epoch 1 / last)");
      case ColDuration:
        return tr("Duration");
      case ColCreated:
        return tr("Created");
      case ColTags:
        return tr("Tags");
    }
  }
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case ColBenchmark:
        return tr(
            "The data the recall was measured on: benchmark (size and data seed, or folder) / "
            "test split. Recall of runs on different test sets is not comparable");
      case ColGamma:
        return tr("Margin strength γ (0 = plain InfoNCE)");
      case ColGbar:
        return tr("How Ḡ is computed: recomputed every step or frozen");
      case ColStartR1T2I:
        return tr("Text→image R@1 (%) of the starting checkpoint (epoch 0), before any step");
      case ColBestR1T2I:
        return tr(
            "Text→image R@1 (%) at the best fine-tuned epoch (highest mean R@1 of both "
            "directions; epoch 0 never counts)");
      case ColStartR1I2T:
        return tr("Image→text R@1 (%) of the starting checkpoint (epoch 0), before any step");
      case ColBestR1I2T:
        return tr(
            "Image→text R@1 (%) at the best fine-tuned epoch (highest mean R@1 of both "
            "directions; epoch 0 never counts)");
      case ColSolved:
        return tr(
            "Share of every training step whose plain InfoNCE loss was below 1e-3 "
            "(the paper's saturation), in the first and the last epoch");
    }
  }
  return {};
}

}  // namespace hnclip::gui

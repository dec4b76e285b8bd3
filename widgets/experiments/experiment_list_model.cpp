#include "widgets/experiments/experiment_list_model.h"

#include <QDateTime>
#include <QLocale>

namespace hnclip::gui {

ExperimentListModel::ExperimentListModel(QObject* parent) : QAbstractTableModel(parent) {}

void ExperimentListModel::setEntries(std::vector<ExperimentListEntry> entries) {
  bool same_rows = entries.size() == entries_.size();
  for (size_t i = 0; same_rows && i < entries.size(); ++i)
    same_rows = entries[i].record.id == entries_[i].record.id;
  if (!same_rows) {
    beginResetModel();
    entries_ = std::move(entries);
    endResetModel();
    return;
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i] == entries_[i]) continue;
    entries_[i] = std::move(entries[i]);
    const int row = static_cast<int>(i);
    emit dataChanged(index(row, 0), index(row, kColumnCount - 1));
  }
}

int ExperimentListModel::rowOf(int64_t id) const {
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].record.id == id) return static_cast<int>(i);
  }
  return -1;
}

const ExperimentListEntry* ExperimentListModel::entry(int64_t id) const {
  const int row = rowOf(id);
  return row < 0 ? nullptr : &entries_[static_cast<size_t>(row)];
}

int ExperimentListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(entries_.size());
}

int ExperimentListModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QString ExperimentListModel::progressText(const ExperimentListEntry& e) {
  QString text = tr("%1/%2 runs").arg(e.runs_finished).arg(e.runs_total);
  QStringList notes;
  if (e.runs_failed > 0) notes << tr("%1 failed").arg(e.runs_failed);
  if (e.runs_reused > 0) notes << tr("%1 reused").arg(e.runs_reused);
  if (!notes.isEmpty()) text += QStringLiteral(" (%1)").arg(notes.join(QStringLiteral(", ")));
  return text;
}

QVariant ExperimentListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const auto& e = entries_[static_cast<size_t>(index.row())];
  if (role == kIdRole) return QVariant::fromValue<qint64>(e.record.id);
  if (role == kProgressRole)
    return e.runs_total > 0 ? static_cast<double>(e.runs_finished) / e.runs_total : 0.0;
  if (role == Qt::ToolTipRole) {
    QString tip = tr("%1 configurations, %2").arg(e.cells).arg(progressText(e));
    if (!e.record.status_message.empty())
      tip += QLatin1Char('\n') + QString::fromStdString(e.record.status_message);
    return tip;
  }
  if (role == Qt::TextAlignmentRole && (index.column() == kId || index.column() == kProgress))
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kId:
      return QVariant::fromValue<qint64>(e.record.id);
    case kName:
      return QString::fromStdString(e.record.name);
    case kStatus:
      return QString::fromStdString(e.record.status);
    case kProgress:
      return progressText(e);
    case kCreated:
      return QLocale().toString(QDateTime::fromMSecsSinceEpoch(e.record.created_at_ms),
                                QLocale::ShortFormat);
    default:
      return {};
  }
}

QVariant ExperimentListModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
    case kId:
      return tr("ID");
    case kName:
      return tr("Name");
    case kStatus:
      return tr("Status");
    case kProgress:
      return tr("Progress");
    case kCreated:
      return tr("Created");
    default:
      return {};
  }
}

}  // namespace hnclip::gui

#include "widgets/retrieval/query_list_model.h"

#include "widgets/common/csv_field.h"

namespace hnclip::gui {

namespace {

QString rank_text(int64_t rank) { return rank > 0 ? QString::number(rank) : QStringLiteral("—"); }

}  // namespace

QueryListModel::QueryListModel(QObject* parent) : QAbstractTableModel(parent) {}

void QueryListModel::setRows(std::vector<QueryListRow> rows, const QString& name_a,
                             const QString& name_b) {
  beginResetModel();
  rows_ = std::move(rows);
  name_a_ = name_a;
  name_b_ = name_b;
  endResetModel();
  emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

int64_t QueryListModel::difference(const QueryListRow& row) {
  return row.rank_a > 0 && row.rank_b > 0 ? row.rank_a - row.rank_b : 0;
}

QueryListCounts QueryListModel::counts() const {
  QueryListCounts c;
  for (const auto& r : rows_) {
    if (r.rank_a <= 0 || r.rank_b <= 0) continue;
    ++c.queries;
    const bool a = r.rank_a == 1, b = r.rank_b == 1;
    if (a && b)
      ++c.both_correct;
    else if (a)
      ++c.a_only;
    else if (b)
      ++c.b_only;
    else
      ++c.both_wrong;
  }
  return c;
}

int QueryListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int QueryListModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant QueryListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= static_cast<int>(rows_.size()) ||
      index.column() >= ColumnCount)
    return {};
  const auto& r = rows_[static_cast<size_t>(index.row())];
  if (role == QueryIdRole) return QVariant::fromValue<qlonglong>(r.query);
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case QueryColumn:
        return QString::number(r.query);
      case TextColumn:
        return r.shown.isEmpty() ? r.text : r.shown;
      case RankAColumn:
        return rank_text(r.rank_a);
      case RankBColumn:
        return rank_text(r.rank_b);
      case DiffColumn: {
        const int64_t d = difference(r);
        return d > 0 ? QStringLiteral("+%1").arg(d) : QString::number(d);
      }
    }
  }
  if (role == SortRole) {
    switch (index.column()) {
      case QueryColumn:
        return QVariant::fromValue<qlonglong>(r.query);
      case TextColumn:
        return r.text;
      case RankAColumn:
        return QVariant::fromValue<qlonglong>(r.rank_a);
      case RankBColumn:
        return QVariant::fromValue<qlonglong>(r.rank_b);
      case DiffColumn:
        return QVariant::fromValue<qlonglong>(difference(r));
    }
  }
  if (role == Qt::TextAlignmentRole && index.column() != TextColumn) {
    return QVariant::fromValue<int>(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role == Qt::ToolTipRole && index.column() == TextColumn) return r.text;
  return {};
}

QVariant QueryListModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::DisplayRole) {
    switch (section) {
      case QueryColumn:
        return tr("#");
      case TextColumn:
        return tr("Query");
      // One letter, as the run pickers and the recall table name the runs: "Rank A" left a
      // 1024-pixel window's caption column "…fou…" (the tooltip says what the number is).
      case RankAColumn:
        return tr("A");
      case RankBColumn:
        return tr("B");
      case DiffColumn:
        return tr("A − B");
    }
  }
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case RankAColumn:
        return tr("Rank of the ground truth under %1 (1 = retrieved first)").arg(name_a_);
      case RankBColumn:
        return tr("Rank of the ground truth under %1").arg(name_b_);
      case DiffColumn:
        return tr("Rank under %1 minus rank under %2: positive = %2 ranks it better")
            .arg(name_a_, name_b_);
    }
  }
  return {};
}

QueryListFilter::QueryListFilter(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(QueryListModel::SortRole);
}

void QueryListFilter::setMode(Mode mode) {
  if (mode == mode_) return;
  mode_ = mode;
  invalidateFilter();
}

void QueryListFilter::setSearchText(const QString& text) {
  if (text == search_) return;
  search_ = text;
  invalidateFilter();
}

bool QueryListFilter::filterAcceptsRow(int source_row, const QModelIndex& source_parent) const {
  if (source_parent.isValid()) return false;
  const auto* model = qobject_cast<const QueryListModel*>(sourceModel());
  if (!model || source_row >= static_cast<int>(model->rows().size())) return false;
  const auto& r = model->rows()[static_cast<size_t>(source_row)];
  const bool a = r.rank_a == 1, b = r.rank_b == 1;
  const bool known = r.rank_a > 0 && r.rank_b > 0;
  switch (mode_) {
    case Mode::All:
      break;
    case Mode::ACorrectBWrong:
      if (!known || !a || b) return false;
      break;
    case Mode::BCorrectAWrong:
      if (!known || !b || a) return false;
      break;
    case Mode::BothWrong:
      if (!known || a || b) return false;
      break;
  }
  if (search_.isEmpty()) return true;
  return r.text.contains(search_, Qt::CaseInsensitive) ||
         QString::number(r.query) == search_.trimmed();
}

QString QueryListFilter::toCsv() const {
  QString out = QStringLiteral("query,text,rank_a,rank_b,diff\n");
  const auto* model = qobject_cast<const QueryListModel*>(sourceModel());
  if (!model) return out;
  for (int row = 0; row < rowCount(); ++row) {
    const int source = mapToSource(index(row, 0)).row();
    const auto& r = model->rows()[static_cast<size_t>(source)];
    out += QStringLiteral("%1,%2,%3,%4,%5\n")
               .arg(r.query)
               .arg(csv_field(r.text))
               .arg(r.rank_a > 0 ? QString::number(r.rank_a) : QString())
               .arg(r.rank_b > 0 ? QString::number(r.rank_b) : QString())
               .arg(r.rank_a > 0 && r.rank_b > 0 ? QString::number(QueryListModel::difference(r))
                                                 : QString());
  }
  return out;
}

}  // namespace hnclip::gui

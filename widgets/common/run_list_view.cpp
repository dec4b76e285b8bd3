#include "widgets/common/run_list_view.h"

#include <algorithm>

#include <QHeaderView>
#include <QSortFilterProxyModel>

#include "widgets/common/run_table_model.h"

namespace hnclip::gui {

RunListView::RunListView(QAbstractItemModel* run_model, QWidget* parent) : QTreeView(parent) {
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(run_model);
  proxy_->setSortRole(RunTableModel::SortRole);
  proxy_->setDynamicSortFilter(true);
  setModel(proxy_);
  setRootIsDecorated(false);
  setUniformRowHeights(true);
  // Runs of one experiment differ at the end of their names ("… · seed 2"): keep both ends.
  setTextElideMode(Qt::ElideMiddle);
  setSelectionMode(QAbstractItemView::ExtendedSelection);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  setSortingEnabled(true);
  sortByColumn(RunTableModel::ColCreated, Qt::DescendingOrder);
  // Narrow dock: name, status and the two headline numbers.
  for (int c = 0; c < RunTableModel::ColumnCount; ++c)
    setColumnHidden(c, c != RunTableModel::ColName && c != RunTableModel::ColStatus &&
                           c != RunTableModel::ColBestR1T2I && c != RunTableModel::ColBestR1I2T);
  header()->setStretchLastSection(false);
  header()->setSectionResizeMode(RunTableModel::ColName, QHeaderView::Stretch);
  connect(selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &RunListView::onSelection);
  // Rows removed by a refresh drop out of the selection without a selectionChanged in every Qt.
  connect(proxy_, &QAbstractItemModel::rowsRemoved, this, &RunListView::onSelection);
  connect(proxy_, &QAbstractItemModel::modelReset, this, &RunListView::onSelection);
}

QList<int64_t> RunListView::selectedRuns() const {
  QModelIndexList rows = selectionModel()->selectedRows(RunTableModel::ColName);
  std::sort(rows.begin(), rows.end(),
            [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
  QList<int64_t> ids;
  for (const auto& ix : rows) ids.append(ix.data(RunTableModel::RunIdRole).toLongLong());
  return ids;
}

void RunListView::selectRuns(const QList<int64_t>& ids) {
  QList<int64_t> want = ids, have = selectedRuns();
  std::sort(want.begin(), want.end());
  std::sort(have.begin(), have.end());
  if (want == have) return;  // no echo back to whoever synchronised us
  QItemSelection selection;
  for (int r = 0; r < proxy_->rowCount(); ++r) {
    const QModelIndex ix = proxy_->index(r, RunTableModel::ColName);
    if (ids.contains(ix.data(RunTableModel::RunIdRole).toLongLong())) selection.select(ix, ix);
  }
  selectionModel()->select(selection,
                           QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void RunListView::onSelection() {
  const QList<int64_t> ids = selectedRuns();
  if (ids == last_) return;
  last_ = ids;
  emit runSelectionChanged(ids);
}

}  // namespace hnclip::gui

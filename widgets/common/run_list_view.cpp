#include "widgets/common/run_list_view.h"

#include <algorithm>

#include <QHeaderView>
#include <QSortFilterProxyModel>

#include "widgets/common/run_table_model.h"

namespace hnclip::gui {
namespace {

// The dock's status column is its icon alone, the word in the tooltip: "✓ finishe" took a third
// of a 160-pixel dock, and the names — an experiment's runs differ only in "· seed N" at their
// end — were left "s52 …ed 2".
class DockRunProxy : public QSortFilterProxyModel {
 public:
  using QSortFilterProxyModel::QSortFilterProxyModel;

  QVariant data(const QModelIndex& index, int role) const override {
    if (index.column() == RunTableModel::ColStatus) {
      if (role == Qt::DisplayRole) return {};
      if (role == Qt::ToolTipRole) {
        const QString status = QSortFilterProxyModel::data(index, Qt::DisplayRole).toString();
        const QString message = QSortFilterProxyModel::data(index, Qt::ToolTipRole).toString();
        return message.isEmpty() ? status : status + QStringLiteral(": ") + message;
      }
    }
    return QSortFilterProxyModel::data(index, role);
  }

  QVariant headerData(int section, Qt::Orientation orientation, int role) const override {
    if (orientation == Qt::Horizontal && section == RunTableModel::ColStatus) {
      if (role == Qt::DisplayRole) return {};
      if (role == Qt::ToolTipRole)
        return QSortFilterProxyModel::headerData(section, orientation, Qt::DisplayRole);
    }
    // "best R@1 t→i" was wider than its numbers; the header's tooltip still says it all.
    if (orientation == Qt::Horizontal && role == Qt::DisplayRole) {
      if (section == RunTableModel::ColBestR1T2I) return QStringLiteral("t→i");
      if (section == RunTableModel::ColBestR1I2T) return QStringLiteral("i→t");
    }
    return QSortFilterProxyModel::headerData(section, orientation, role);
  }
};

}  // namespace

RunListView::RunListView(QAbstractItemModel* run_model, QWidget* parent) : QTreeView(parent) {
  proxy_ = new DockRunProxy(this);
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
  header()->setSectionResizeMode(RunTableModel::ColName, QHeaderView::Fixed);  // fitColumns()
  for (int c : {RunTableModel::ColStatus, RunTableModel::ColBestR1T2I, RunTableModel::ColBestR1I2T})
    header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  connect(header(), &QHeaderView::sectionResized, this, [this](int section) {
    if (section != RunTableModel::ColName) fitColumns();
  });
  connect(selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &RunListView::onSelection);
  // Rows removed by a refresh drop out of the selection without a selectionChanged in every Qt.
  connect(proxy_, &QAbstractItemModel::rowsRemoved, this, &RunListView::onSelection);
  connect(proxy_, &QAbstractItemModel::modelReset, this, &RunListView::onSelection);
}

void RunListView::resizeEvent(QResizeEvent* event) {
  QTreeView::resizeEvent(event);
  fitColumns();
}

// The name takes what the status icon and the two numbers leave; when that is less than a
// readable name, it takes the whole width beside the icon and the numbers are a scroll away.
// (A stretched name column was squeezed to its minimum instead, and the numbers still scrolled.)
void RunListView::fitColumns() {
  const int room = viewport()->width();
  const int status = header()->sectionSize(RunTableModel::ColStatus);
  const int numbers = header()->sectionSize(RunTableModel::ColBestR1T2I) +
                      header()->sectionSize(RunTableModel::ColBestR1I2T);
  const int readable = fontMetrics().averageCharWidth() * kReadableNameCharacters;
  const int beside_numbers = room - status - numbers;
  const int name = beside_numbers >= readable ? beside_numbers : room - status;
  header()->resizeSection(RunTableModel::ColName, std::max(name, header()->minimumSectionSize()));
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

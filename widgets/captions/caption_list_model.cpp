#include "widgets/captions/caption_list_model.h"

#include <cmath>
#include <limits>

#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QTableView>

#include "widgets/common/distinguishing_text.h"

namespace hnclip::gui {

CaptionListModel::CaptionListModel(QObject* parent) : QAbstractTableModel(parent) {}

void CaptionListModel::setCaptions(std::vector<QString> texts, std::vector<double> hardest,
                                   const std::vector<int64_t>& nearest) {
  std::vector<std::string> utf8;
  utf8.reserve(texts.size());
  for (const QString& t : texts) utf8.push_back(t.toStdString());
  beginResetModel();
  shown_ = distinguishing_texts(utf8, nearest);
  texts_ = std::move(texts);
  hardest_ = std::move(hardest);
  if (!hardest_.empty() && hardest_.size() != texts_.size())
    hardest_.clear();  // never index past it
  endResetModel();
}

int CaptionListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(texts_.size());
}

int CaptionListModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant CaptionListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() < 0 || index.row() >= rowCount()) return {};
  const auto row = static_cast<size_t>(index.row());
  const double hardest =
      hardest_.empty() ? std::numeric_limits<double>::quiet_NaN() : hardest_[row];
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case IndexColumn:
          return index.row();
        case HardestColumn:
          return std::isnan(hardest) ? QString() : QString::number(hardest, 'f', 3);
        case TextColumn:
          return shown_[row];
        default:
          return {};
      }
    case SortRole:
      switch (index.column()) {
        case IndexColumn:
          return QVariant::fromValue<qint64>(index.row());
        // NaN does not order: unknown cosines sort below every known one.
        case HardestColumn:
          return std::isnan(hardest) ? -2.0 : hardest;
        case TextColumn:
          return texts_[row];
        default:
          return {};
      }
    case CaptionIdRole:
      return QVariant::fromValue<qint64>(index.row());
    case Qt::ToolTipRole:
      return index.column() == TextColumn ? texts_[row] : QVariant();
    case Qt::TextAlignmentRole:
      return index.column() == TextColumn ? QVariant()
                                          : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    default:
      return {};
  }
}

QVariant CaptionListModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
    case IndexColumn:
      return tr("#");
    case HardestColumn:
      return tr("Hardest cos");
    case TextColumn:
      return tr("Caption");
    default:
      return {};
  }
}

void CaptionListModel::configureProxy(QSortFilterProxyModel* proxy) {
  proxy->setSortRole(SortRole);
  proxy->setFilterKeyColumn(TextColumn);
  proxy->setFilterRole(SortRole);  // the full text, not the part shown
  proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
  proxy->setSortCaseSensitivity(Qt::CaseInsensitive);
}

void CaptionListModel::configureView(QTableView* view) {
  view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
  view->verticalHeader()->hide();
  view->setWordWrap(false);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setSelectionMode(QAbstractItemView::SingleSelection);
  view->setSortingEnabled(true);
  view->sortByColumn(IndexColumn, Qt::AscendingOrder);
  view->horizontalHeader()->setStretchLastSection(true);
  view->horizontalHeader()->setSectionResizeMode(IndexColumn, QHeaderView::ResizeToContents);
  view->horizontalHeader()->setSectionResizeMode(HardestColumn, QHeaderView::ResizeToContents);
}

}  // namespace hnclip::gui

#pragma once
// CaptionListModel: every caption of a benchmark split as a table — its index in the split, its
// hardest-neighbour cosine under the chosen encoder, and its text — for the Captions tab's list.
// The text column shows the part of the caption that tells it apart (from its first word that
// differs from its nearest neighbour, widgets/common/distinguishing_text.h); the full text is its
// tooltip and what the filter and the sort see.
// Plain data held in two vectors, so a 10k-caption split costs nothing per row; the view sorts and
// filters through a QSortFilterProxyModel set up by configureProxy (SortRole gives typed values).
// Threading: GUI thread.

#include <cstdint>
#include <vector>

#include <QAbstractTableModel>
#include <QString>

class QSortFilterProxyModel;
class QTableView;

namespace hnclip::gui {

class CaptionListModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { IndexColumn = 0, HardestColumn, TextColumn, ColumnCount };
  enum Role {
    SortRole = Qt::UserRole,  // qint64 index, double cosine (NaN sorts first), QString text
    CaptionIdRole,            // the caption's index in the split, in any column
  };

  explicit CaptionListModel(QObject* parent = nullptr);

  // `hardest` is empty (geometry not known yet) or has one cosine per caption; `nearest` is empty
  // or has, per caption, the index of its nearest other caption (-1: not known).
  void setCaptions(std::vector<QString> texts, std::vector<double> hardest,
                   const std::vector<int64_t>& nearest = {});
  int64_t captionCount() const { return static_cast<int64_t>(texts_.size()); }
  const QString& text(int64_t caption) const { return texts_.at(static_cast<size_t>(caption)); }
  // What the text column shows of it.
  const QString& shownText(int64_t caption) const {
    return shown_.at(static_cast<size_t>(caption));
  }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  // Sorting by SortRole, case-insensitive fixed-string filtering of the text column.
  static void configureProxy(QSortFilterProxyModel* proxy);
  // The list's view: virtualised (uniform row heights, no per-row widgets, no word wrap) so a
  // 10k-caption split scrolls freely; rows selectable one at a time; sortable by any column.
  static void configureView(QTableView* view);

 private:
  std::vector<QString> texts_;
  std::vector<QString> shown_;  // per caption: its distinguishing part
  std::vector<double> hardest_;
};

}  // namespace hnclip::gui

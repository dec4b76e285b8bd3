#pragma once
// QueryListModel: the Retrieval tab's query list — every test query of one direction with the
// 1-based rank of its ground truth under run A and run B and the difference (rank A − rank B:
// positive = B ranks it better). QueryListFilter (a QSortFilterProxyModel) adds the filters
// "A correct / B wrong", "B correct / A wrong", "both wrong" and a text search, and sorts every
// column numerically. The text column shows the part of each query that tells it apart, with the
// full text as its tooltip (the search and the CSV see the full text). Summary counts say how many
// queries each run fixes that the other misses. Plain values in, GUI thread only.

#include <cstdint>
#include <vector>

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QString>

namespace hnclip::gui {

struct QueryListRow {
  int64_t query = 0;   // caption index (t2i) or image index (i2t)
  QString text;        // the query caption, or the image's file name for i2t
  int64_t rank_a = 0;  // 1-based; 0 = not stored for this run
  int64_t rank_b = 0;
  // What the text column shows: the part of `text` that tells it apart
  // (widgets/common/distinguishing_text.h); "" = all of `text`.
  QString shown;
};

struct QueryListCounts {
  int queries = 0;
  int a_only = 0;  // A ranks the ground truth first, B does not
  int b_only = 0;  // B ranks it first, A does not
  int both_correct = 0;
  int both_wrong = 0;
};

class QueryListModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { QueryColumn, TextColumn, RankAColumn, RankBColumn, DiffColumn, ColumnCount };
  // Qt::UserRole: the number a column sorts by (query id, rank, difference; text for TextColumn).
  static constexpr int SortRole = Qt::UserRole;
  static constexpr int QueryIdRole = Qt::UserRole + 1;

  explicit QueryListModel(QObject* parent = nullptr);

  void setRows(std::vector<QueryListRow> rows, const QString& name_a, const QString& name_b);
  const std::vector<QueryListRow>& rows() const { return rows_; }
  QueryListCounts counts() const;
  // rank A − rank B (0 when either is unknown).
  static int64_t difference(const QueryListRow& row);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<QueryListRow> rows_;
  QString name_a_ = QStringLiteral("A"), name_b_ = QStringLiteral("B");
};

class QueryListFilter : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  enum class Mode { All, ACorrectBWrong, BCorrectAWrong, BothWrong };

  explicit QueryListFilter(QObject* parent = nullptr);
  void setMode(Mode mode);
  Mode mode() const { return mode_; }
  // Case-insensitive substring of the query text (or its number).
  void setSearchText(const QString& text);
  QString searchText() const { return search_; }

  // "query,text,rank_a,rank_b,diff" and one line per visible row in the current order
  // (RFC 4180 quoting of the text).
  QString toCsv() const;

 protected:
  bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;

 private:
  Mode mode_ = Mode::All;
  QString search_;
};

}  // namespace hnclip::gui

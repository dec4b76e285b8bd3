#pragma once
// RetrievalContent: what the Retrieval tab shows of one load of two runs' ranks (RetrievalQueries):
// the query list's rows (both runs' ranks joined by query, with each query's text) and the
// side-by-side view's content for a stored query (each run's top-k — scored by its retriever when
// loaded, else the stored ids — ground truth and near-twins marked, each retrieved caption marked
// where it differs from the query's) or for an ad-hoc result. The query list's text column gets
// each query's distinguishing part.
// Plain values in, plain values out: no widgets. Threading: any one thread.

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <QCoreApplication>
#include <QString>

#include "widgets/retrieval/query_list_model.h"
#include "widgets/retrieval/retrieval_data.h"
#include "widgets/retrieval/retrieval_loader.h"
#include "widgets/retrieval/retrieval_view.h"

namespace hnclip::gui {

// One of the two compared runs, as the view shows it.
struct RetrievalShownRun {
  QString name;  // "A: gamma-0"
  int64_t run = 0;
  int epoch = -1;
  std::shared_ptr<const RunRetriever> retriever;  // null: the stored top ids, without scores
  QString error;                                  // why `retriever` is null ("" = still loading)
};

struct RetrievalViewContent {
  QString title, query_text, query_image;
  std::vector<RetrievalViewRow> rows;
};

class RetrievalContent {
  Q_DECLARE_TR_FUNCTIONS(RetrievalContent)
 public:
  RetrievalContent() = default;
  explicit RetrievalContent(RetrievalQueries queries);

  bool empty() const { return !queries_.catalog; }
  const RetrievalQueries& queries() const { return queries_; }

  std::vector<QueryListRow> queryRows() const;
  // `runs`: A then B, their ranks being queries().ranks_a and ranks_b. Nullopt and `message` when
  // the query is not in the split.
  std::optional<RetrievalViewContent> storedQuery(int64_t query, int k,
                                                  const std::vector<RetrievalShownRun>& runs,
                                                  QString* message) const;
  // `names`: each result's row name, in the result's order.
  RetrievalViewContent adhoc(const RetrievalAdhocResult& result,
                             const std::vector<QString>& names) const;
  // The words of an ad-hoc query each run's word vocabulary lacks, named per run ("" when none).
  static QString unknownWordsNote(const RetrievalAdhocResult& result,
                                  const std::vector<QString>& names);

 private:
  struct Query;
  bool describe(int64_t query, Query* shown) const;
  std::set<int64_t> nearTwins(int64_t query, const Query& shown,
                              const std::vector<RetrievalShownRun>& runs) const;
  RetrievalViewRow storedRow(size_t i, const RetrievalShownRun& run, int64_t query, int k,
                             const Query& shown, const std::set<int64_t>& twins) const;
  RetrievalViewItem resultItem(int64_t id, bool image, const std::vector<std::string>& query) const;

  RetrievalQueries queries_;
  std::vector<int64_t> caption_image_;  // of queries_.catalog
};

}  // namespace hnclip::gui

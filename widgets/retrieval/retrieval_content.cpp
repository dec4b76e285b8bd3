#include "widgets/retrieval/retrieval_content.h"

#include <QStringList>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "text/word_diff.h"
#include "widgets/common/distinguishing_text.h"
#include "widgets/common/run_colors.h"
#include "widgets/common/word_diff_html.h"
#include "widgets/retrieval/retrieval_marks.h"

namespace hnclip::gui {

namespace {

constexpr int kStoredTopK = 10;              // ids the store keeps per query
constexpr int kDifferingStretchesShown = 3;  // under a retrieved image: its caption's changes
constexpr int kStretchBridge = 1;  // shared words between two changes that make them one stretch

QString qs(const std::string& s) { return QString::fromStdString(s); }

// The stored rank row of `query`, or null.
const QueryRankRow* stored_rank(const std::vector<QueryRankRow>& ranks, int64_t query) {
  const auto it = std::lower_bound(ranks.begin(), ranks.end(), query,
                                   [](const QueryRankRow& r, int64_t q) { return r.query < q; });
  return it != ranks.end() && it->query == query ? &*it : nullptr;
}

// What changes from `reference` to `caption`, as a short line: each changed stretch as
// "removed → added" ("+added" or "−removed" where one side is empty), at most
// kDifferingStretchesShown of them, "" when the two have the same words. Two changes one shared
// word apart are one stretch ("two circles, one square → one circle, two squares" rather than
// the word-by-word alignment's "−two circles; square → circle two squares").
QString change_summary(const std::string& caption, const std::string& reference) {
  const auto diff = hnclip::word_diff(reference, caption);
  const auto word = [](const std::string& text, const hnclip::TextWord& w) {
    return QString::fromStdString(text.substr(w.begin, w.end - w.begin));
  };
  QStringList stretches, removed, added;
  QStringList shared_a, shared_b;  // shared words since the open stretch's last change
  bool open = false;
  const auto close_stretch = [&] {
    if (open) {
      const QString from = removed.join(QLatin1Char(' ')), to = added.join(QLatin1Char(' '));
      stretches << (from.isEmpty() ? QStringLiteral("+") + to
                    : to.isEmpty() ? QStringLiteral("−") + from
                                   : from + QStringLiteral(" → ") + to);
    }
    removed.clear();
    added.clear();
    shared_a.clear();
    shared_b.clear();
    open = false;
  };
  for (const auto& op : diff.ops) {
    if (op.kind == hnclip::WordDiffOp::kSame) {
      if (!open) continue;
      shared_a << word(reference, diff.a[op.a]);
      shared_b << word(caption, diff.b[op.b]);
      if (shared_a.size() > kStretchBridge) close_stretch();
      continue;
    }
    removed << shared_a;  // the bridged shared words belong to both sides of the stretch
    added << shared_b;
    shared_a.clear();
    shared_b.clear();
    open = true;
    if (op.kind == hnclip::WordDiffOp::kRemoved)
      removed << word(reference, diff.a[op.a]);
    else
      added << word(caption, diff.b[op.b]);
  }
  close_stretch();
  if (stretches.size() > kDifferingStretchesShown) {
    stretches = stretches.mid(0, kDifferingStretchesShown);
    stretches << QString(QChar(0x2026));
  }
  return stretches.join(QStringLiteral("; "));
}

// How many words of `caption` the reference lacks.
size_t differing_count(const std::string& caption, const std::string& reference) {
  const auto marks = hnclip::word_diff(reference, caption).b_differs();
  return static_cast<size_t>(std::count(marks.begin(), marks.end(), true));
}

}  // namespace

// The query on top of the view and its ground truth.
struct RetrievalContent::Query {
  bool t2i = true;
  std::vector<int64_t> truth;
  QString text, image, title;
  std::vector<std::string> captions;  // the query's caption(s): what results are diffed against
};

RetrievalContent::RetrievalContent(RetrievalQueries queries) : queries_(std::move(queries)) {
  if (!queries_.catalog) return;
  const auto& cat = *queries_.catalog;
  caption_image_.resize(static_cast<size_t>(cat.num_captions()));
  for (int64_t c = 0; c < cat.num_captions(); ++c)
    caption_image_[static_cast<size_t>(c)] = cat.caption_image(c);
}

std::vector<QueryListRow> RetrievalContent::queryRows() const {
  if (empty()) return {};
  const auto& cat = *queries_.catalog;
  const bool t2i = queries_.direction == "t2i";
  std::map<int64_t, QueryListRow> rows;
  for (const auto& q : queries_.ranks_a) {
    auto& row = rows[q.query];
    row.query = q.query;
    row.rank_a = q.rank;
  }
  for (const auto& q : queries_.ranks_b) {
    auto& row = rows[q.query];
    row.query = q.query;
    row.rank_b = q.rank;
  }
  // Each caption's distinguishing part: from its first word that differs from its nearest stored
  // neighbour, else after the words the whole split begins with.
  std::vector<std::string> texts(static_cast<size_t>(cat.num_captions()));
  std::vector<int64_t> nearest(texts.size(), -1);
  for (int64_t c = 0; c < cat.num_captions(); ++c)
    texts[static_cast<size_t>(c)] = cat.caption_text(c);
  for (const auto& [c, neighbors] : queries_.caption_neighbors)
    if (c >= 0 && c < cat.num_captions() && !neighbors.empty())
      nearest[static_cast<size_t>(c)] = neighbors.front();
  const auto shown = distinguishing_texts(texts, nearest);
  std::vector<QueryListRow> list;
  for (auto& [id, row] : rows) {
    try {
      const int64_t caption = t2i ? id : cat.image_captions(id).front();
      row.text = t2i ? qs(cat.caption_text(id))
                     : tr("image %1: %2").arg(id).arg(qs(cat.caption_text(caption)));
      row.shown = t2i ? shown.at(static_cast<size_t>(caption))
                      : tr("image %1: %2").arg(id).arg(shown.at(static_cast<size_t>(caption)));
    } catch (const std::out_of_range&) {
      row.text = tr("(query %1 is not in the split: stored ranks and benchmark disagree)").arg(id);
    }
    list.push_back(row);
  }
  return list;
}

bool RetrievalContent::describe(int64_t query, Query* shown) const {
  const auto& cat = *queries_.catalog;
  shown->t2i = queries_.direction == "t2i";
  try {
    if (shown->t2i) {
      shown->truth = {cat.caption_image(query)};
      shown->text = qs(cat.caption_text(query));
      shown->captions = {cat.caption_text(query)};
      shown->title = tr("Text → image · caption %1 · ground truth: image %2")
                         .arg(query)
                         .arg(shown->truth.front());
    } else {
      shown->truth = cat.image_captions(query);
      shown->image = qs(cat.image_path(query));
      QStringList caps;
      for (int64_t c : shown->truth) {
        caps << qs(cat.caption_text(c));
        shown->captions.push_back(cat.caption_text(c));
      }
      shown->text = caps.join(QStringLiteral("\n"));
      shown->title = tr("Image → text · image %1 · ground truth: its %2 caption(s)")
                         .arg(query)
                         .arg(shown->truth.size());
    }
  } catch (const std::out_of_range&) {
    return false;
  }
  return true;
}

// Near-twins: the stored caption geometry's neighbours, else those of the first run whose
// embeddings are loaded.
std::set<int64_t> RetrievalContent::nearTwins(int64_t query, const Query& shown,
                                              const std::vector<RetrievalShownRun>& runs) const {
  std::shared_ptr<const RunRetriever> twin_source;
  for (const auto& r : runs)
    if (!twin_source) twin_source = r.retriever;
  std::vector<int64_t> neighbors;
  for (int64_t c : shown.t2i ? std::vector<int64_t>{query} : shown.truth) {
    if (!queries_.caption_neighbors.empty()) {
      const auto it = queries_.caption_neighbors.find(c);
      if (it != queries_.caption_neighbors.end())
        neighbors.insert(neighbors.end(), it->second.begin(), it->second.end());
    } else if (twin_source) {
      for (const auto& n : twin_source->caption_neighbors(c, kNearTwinNeighbors))
        neighbors.push_back(n.id);
    }
  }
  return near_twin_candidates(shown.t2i, neighbors, shown.truth, caption_image_);
}

std::optional<RetrievalViewContent> RetrievalContent::storedQuery(
    int64_t query, int k, const std::vector<RetrievalShownRun>& runs, QString* message) const {
  if (empty()) return std::nullopt;
  Query shown;
  if (!describe(query, &shown)) {
    if (message) *message = tr("Query %1 is not in the split.").arg(query);
    return std::nullopt;
  }
  const auto twins = nearTwins(query, shown, runs);
  RetrievalViewContent content{shown.title, shown.text, shown.image, {}};
  for (size_t i = 0; i < runs.size(); ++i)
    content.rows.push_back(storedRow(i, runs[i], query, k, shown, twins));
  return content;
}

RetrievalViewRow RetrievalContent::storedRow(size_t i, const RetrievalShownRun& run, int64_t query,
                                             int k, const Query& shown,
                                             const std::set<int64_t>& twins) const {
  RetrievalViewRow row;
  row.run_name = run.name;
  row.color = run_color(run.run);
  const QueryRankRow* stored = stored_rank(i == 0 ? queries_.ranks_a : queries_.ranks_b, query);
  const int64_t rank = stored ? stored->rank : 0;
  row.rank_text = rank > 0 ? tr("epoch %1 · rank %2").arg(run.epoch).arg(rank)
                           : tr("epoch %1 · rank not stored").arg(run.epoch);
  std::vector<int64_t> ids;
  std::vector<float> scores;
  if (run.retriever) {
    for (const auto& c : run.retriever->query_topk(queries_.direction, query, k)) {
      ids.push_back(c.id);
      scores.push_back(c.score);
    }
  } else if (stored) {
    for (size_t j = 0; j < stored->topk.size() && static_cast<int>(j) < k; ++j)
      ids.push_back(stored->topk[j]);
    scores.assign(ids.size(), NAN);
    row.note = !run.error.isEmpty() ? tr("no scores: %1").arg(run.error)
               : k > kStoredTopK
                   ? tr("stored top-%1 only until the embeddings are loaded").arg(kStoredTopK)
                   : QString();
  }
  const auto marks = mark_retrieval(ids, shown.truth, rank, twins);
  if (!marks.rank_note.isEmpty())
    row.note = marks.rank_note + (row.note.isEmpty() ? QString() : QStringLiteral("; ") + row.note);
  for (size_t j = 0; j < marks.items.size(); ++j) {
    RetrievalViewItem item = resultItem(marks.items[j].id, shown.t2i, shown.captions);
    item.score = scores[j];
    item.ground_truth = marks.items[j].ground_truth;
    item.near_twin = marks.items[j].near_twin;
    row.items.push_back(std::move(item));
  }
  return row;
}

// A retrieved image (t2i) with its captions as tooltip, or a retrieved caption (i2t); each
// caption marked where it differs from the nearest of the query's captions.
RetrievalViewItem RetrievalContent::resultItem(int64_t id, bool image,
                                               const std::vector<std::string>& query) const {
  const auto& cat = *queries_.catalog;
  // The query caption closest (fewest own words) to `caption`: its twin, when it has one.
  const auto reference = [&query](const std::string& caption) -> std::string {
    const std::string* best = nullptr;
    size_t fewest = 0;
    for (const auto& q : query) {
      const size_t n = differing_count(caption, q);
      if (!best || n < fewest) {
        best = &q;
        fewest = n;
      }
    }
    return best ? *best : std::string();
  };
  RetrievalViewItem item;
  try {
    if (image) {
      item.image_path = qs(cat.image_path(id));
      QStringList caps;
      size_t fewest = 0;  // the line under the image: its caption nearest the query's
      for (int64_t c : cat.image_captions(id)) {
        const std::string text = cat.caption_text(c);
        if (query.empty()) {
          caps << qs(text).toHtmlEscaped();
          continue;
        }
        const std::string ref = reference(text);
        caps << word_diff_html(qs(text), qs(ref), false);
        const size_t n = differing_count(text, ref);
        if (caps.size() == 1 || n < fewest) {
          fewest = n;
          item.differs = change_summary(text, ref);
        }
      }
      item.tooltip = tr("<b>image %1</b><br>%2").arg(id).arg(caps.join(QStringLiteral("<br>")));
    } else {
      const std::string text = cat.caption_text(id);
      item.text = qs(text);
      if (!query.empty()) item.html = word_diff_html(item.text, qs(reference(text)), false);
      item.tooltip = tr("caption %1 of image %2").arg(id).arg(cat.caption_image(id));
    }
  } catch (const std::out_of_range&) {
    item.text = tr("(id %1 outside the split)").arg(id);
  }
  return item;
}

QString RetrievalContent::unknownWordsNote(const RetrievalAdhocResult& result,
                                           const std::vector<QString>& names) {
  QStringList parts;
  for (size_t i = 0; i < result.unknown_words.size() && i < result.results.size(); ++i) {
    const auto& words = result.unknown_words[i];
    if (words.empty()) continue;
    QStringList listed;
    for (const auto& w : words)
      if (!listed.contains(QString::fromStdString(w))) listed << QString::fromStdString(w);
    const QString name =
        i < names.size() ? names[i] : tr("run %1").arg(result.results[i].first.first);
    parts << tr("%1's vocabulary lacks %2").arg(name, listed.join(QStringLiteral(", ")));
  }
  if (parts.isEmpty()) return {};
  return parts.join(QStringLiteral("; ")) +
         tr(" (each such word encodes as the one unknown token, so it does not steer the "
            "ranking)");
}

RetrievalViewContent RetrievalContent::adhoc(const RetrievalAdhocResult& result,
                                             const std::vector<QString>& names) const {
  RetrievalViewContent content;
  content.title = tr("Ad-hoc query (text → image, top-%1)").arg(result.k);
  content.query_text = result.text;
  for (size_t i = 0; i < result.results.size(); ++i) {
    const auto& [key, candidates] = result.results[i];
    RetrievalViewRow row;
    row.run_name = i < names.size() ? names[i] : QString::number(key.first);
    row.color = run_color(key.first);
    row.rank_text = tr("epoch %1").arg(key.second);
    const size_t unknown = i < result.unknown_words.size() ? result.unknown_words[i].size() : 0;
    if (unknown > 0)
      row.rank_text += unknown == 1 ? tr(" · 1 word not in its vocabulary")
                                    : tr(" · %1 words not in its vocabulary").arg(unknown);
    for (const auto& c : candidates) {
      RetrievalViewItem item = resultItem(c.id, true, {result.text.toStdString()});
      if (!item.text.isEmpty()) item.text = tr("(image %1 outside the split)").arg(c.id);
      item.score = c.score;
      row.items.push_back(std::move(item));
    }
    content.rows.push_back(std::move(row));
  }
  return content;
}

}  // namespace hnclip::gui

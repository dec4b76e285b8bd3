#pragma once
// RetrievalView: the side-by-side view of one query (paper Fig. 3) — the query caption (or query
// image) on top, then one row per run: its name and the ground truth's rank, and its top-k results
// as thumbnails (text→image) or caption cards (image→text) with their scores. Ground truth is
// outlined green wherever it appears, near-twins get an orange outline and a "near-twin" tag,
// and a row whose top-k misses the ground truth says at which rank it is. The widget is laid out
// to be exported as a figure as it is (grab()). GUI thread only.

#include <cmath>
#include <vector>

#include <QColor>
#include <QString>
#include <QWidget>

class QGridLayout;
class QLabel;
class QVBoxLayout;

namespace hnclip::gui {

class ThumbnailCache;
class ThumbnailLabel;

struct RetrievalViewItem {
  QString image_path;  // t2i results: the image; empty for caption results
  QString text;        // i2t results: the caption
  QString html;        // i2t: the caption as rich text, marked where it differs from the query's
  QString tooltip;     // t2i: the retrieved image's caption(s), marked likewise (rich text)
  QString differs;     // t2i: how its caption changes the query's ("red → blue"), under the image
  float score = NAN;   // NaN: not known (stored ids only, no embeddings yet)
  bool ground_truth = false;
  bool near_twin = false;
};

struct RetrievalViewRow {
  QString run_name;
  QColor color;       // the run's colour (run_colors.h)
  QString rank_text;  // "rank 1" / "rank 52" / "" (ad-hoc)
  QString note;       // "ground truth at rank 52", errors, ...
  std::vector<RetrievalViewItem> items;
};

class RetrievalView : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kThumbEdge = 112;
  static constexpr QColor kGroundTruthColor{40, 170, 60};
  static constexpr QColor kNearTwinColor{235, 140, 20};

  explicit RetrievalView(ThumbnailCache* cache, QWidget* parent = nullptr);

  // query_image: shown above for image queries (empty for caption queries).
  void setContent(const QString& title, const QString& query_text, const QString& query_image,
                  const std::vector<RetrievalViewRow>& rows);
  void clear(const QString& message = {});
  // True once every thumbnail shown has its image (or placeholder) painted.
  bool allImagesShown() const;
  // Labels of the result thumbnails, row by row (tests).
  const std::vector<std::vector<ThumbnailLabel*>>& thumbnails() const { return thumbs_; }
  const std::vector<RetrievalViewRow>& rows() const { return rows_; }

 private:
  void enlarge(ThumbnailLabel* label);
  ThumbnailCache* cache_;
  QVBoxLayout* layout_;
  QWidget* body_ = nullptr;
  std::vector<std::vector<ThumbnailLabel*>> thumbs_;
  ThumbnailLabel* query_thumb_ = nullptr;
  std::vector<RetrievalViewRow> rows_;
};

}  // namespace hnclip::gui

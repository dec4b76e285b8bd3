#pragma once
// CaptionDetailView: one caption of the split as in the paper's Fig. A1 — its image and full
// text, then its k nearest other captions, each with its image, cosine and text, marked where it
// differs from the selected caption (widgets/common/word_diff_html.h). Images come through the
// shared ThumbnailCache (decoded off the GUI thread; a missing file shows the cache's placeholder).
// Clicking a neighbour's image or number emits captionActivated. Threading: GUI thread.

#include <cstdint>
#include <vector>

#include <QElapsedTimer>
#include <QString>
#include <QWidget>

class QGridLayout;
class QLabel;

namespace hnclip::gui {

class ThumbnailCache;
class ThumbnailLabel;

class CaptionDetailView : public QWidget {
  Q_OBJECT

 public:
  struct Item {
    int64_t caption = -1;
    QString text;
    QString image_path;
    double cosine = 0;  // to the selected caption (neighbours only)
  };

  CaptionDetailView(ThumbnailCache* cache, QWidget* parent = nullptr);

  // Shows `selected` and its neighbours (nearest first); a caption < 0 clears the view.
  void setCaption(const Item& selected, const std::vector<Item>& neighbors);
  int64_t caption() const { return selected_.caption; }
  int neighborCount() const { return static_cast<int>(neighbors_.size()); }
  // Every thumbnail of the view shows its image or its placeholder.
  bool allImagesShown() const;
  ThumbnailLabel* selectedThumbnail() const { return main_image_; }
  ThumbnailLabel* neighborThumbnail(int i) const;
  QLabel* neighborText(int i) const;

 signals:
  void captionActivated(qint64 caption);
  // Emitted once per setCaption when all thumbnails are shown, with the milliseconds it took.
  void imagesShown(qint64 caption, qint64 elapsed_ms);

 private:
  void checkImagesShown();
  void clearNeighbors();

  ThumbnailCache* cache_;
  ThumbnailLabel* main_image_ = nullptr;
  QLabel* main_text_ = nullptr;
  QGridLayout* grid_ = nullptr;
  Item selected_;
  std::vector<Item> neighbors_;
  std::vector<ThumbnailLabel*> neighbor_images_;
  std::vector<QLabel*> neighbor_texts_;
  QElapsedTimer since_set_;
  bool shown_reported_ = true;
};

}  // namespace hnclip::gui

#pragma once
// GbarPairView: the Ḡ heatmap's "Selected pair" box — the two captions of a clicked cell side by
// side, each with its image (decoded off the GUI thread by the shared ThumbnailCache) and its
// full text with the words the other caption lacks highlighted (widgets/common/word_diff_html.h),
// under a title with the cell's Ḡ value. GUI thread.

#include <cstdint>

#include <QGroupBox>
#include <QString>

class QLabel;

namespace hnclip::gui {

class ThumbnailCache;
class ThumbnailLabel;

class GbarPairView : public QGroupBox {
  Q_OBJECT
 public:
  struct Side {
    int64_t caption = 0;
    QString text;
    QString image_path;
  };

  explicit GbarPairView(ThumbnailCache* thumbnails, QWidget* parent = nullptr);

  void clear();  // the hint to click a cell
  void showPair(double gbar, int epoch, int batch, const Side& a, const Side& b);
  // Both images (or their placeholders) are painted; false while one is still decoding.
  bool imagesShown() const;
  QString sideText(int k) const;  // the rich text of side 0 or 1

 private:
  QLabel* title_ = nullptr;
  ThumbnailLabel* image_[2] = {nullptr, nullptr};
  QLabel* text_[2] = {nullptr, nullptr};
};

}  // namespace hnclip::gui

#pragma once
// ThumbnailLabel: a fixed-size label that shows one benchmark image through the shared
// ThumbnailCache — "loading…" until the decode arrives, the cache's placeholder for a missing
// file — with an optional coloured outline (the Retrieval tab outlines ground truth in green) and
// a caption-like tooltip. Clicking it emits `clicked`.

#include <QColor>
#include <QLabel>
#include <QPointer>
#include <QString>

namespace hnclip::gui {

class ThumbnailCache;

class ThumbnailLabel : public QLabel {
  Q_OBJECT

 public:
  ThumbnailLabel(ThumbnailCache* cache, int edge, QWidget* parent = nullptr);

  void setImagePath(const QString& path);  // "" clears
  QString imagePath() const { return path_; }
  void setOutline(const QColor& color, int width = 4);  // invalid colour: no outline
  QColor outline() const { return outline_; }
  bool hasImage() const { return has_image_; }  // the decoded image (or placeholder) is shown
  int edge() const { return edge_; }

 signals:
  void clicked();

 protected:
  void mouseReleaseEvent(QMouseEvent* event) override;
  void paintEvent(QPaintEvent* event) override;

 private:
  void onReady(const QString& path, int edge, const QImage& image);
  QPointer<ThumbnailCache> cache_;
  int edge_;
  QString path_;
  QColor outline_;
  int outline_width_ = 4;
  bool has_image_ = false;
};

}  // namespace hnclip::gui

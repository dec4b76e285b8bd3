#include "widgets/common/thumbnail_label.h"

#include <QMouseEvent>
#include <QPainter>

#include "widgets/common/thumbnail_cache.h"

namespace hnclip::gui {

namespace {
constexpr int kFrame = 4;  // room for the outline around the image
}

ThumbnailLabel::ThumbnailLabel(ThumbnailCache* cache, int edge, QWidget* parent)
    : QLabel(parent), cache_(cache), edge_(edge) {
  setFixedSize(edge + 2 * kFrame, edge + 2 * kFrame);
  setAlignment(Qt::AlignCenter);
  if (cache_) connect(cache_, &ThumbnailCache::ready, this, &ThumbnailLabel::onReady);
}

void ThumbnailLabel::setImagePath(const QString& path) {
  path_ = path;
  has_image_ = false;
  clear();
  if (path_.isEmpty() || !cache_) return;
  const QImage image = cache_->thumbnail(path_, edge_);
  if (image.isNull()) {
    setText(tr("loading…"));
  } else {
    onReady(path_, edge_, image);
  }
}

void ThumbnailLabel::onReady(const QString& path, int edge, const QImage& image) {
  if (path != path_ || edge != edge_) return;
  // Small images (the built-in benchmark renders 64 px) are enlarged to the label's edge so that
  // every thumbnail of a row has the same size; large ones arrive already fitted by the cache.
  const QImage fitted =
      image.width() == edge_ || image.height() == edge_
          ? image
          : image.scaled(edge_, edge_, Qt::KeepAspectRatio, Qt::SmoothTransformation);
  setPixmap(QPixmap::fromImage(fitted));
  has_image_ = true;
}

void ThumbnailLabel::setOutline(const QColor& color, int width) {
  outline_ = color;
  outline_width_ = std::max(1, std::min(width, kFrame));
  update();
}

void ThumbnailLabel::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && rect().contains(event->position().toPoint()))
    emit clicked();
  QLabel::mouseReleaseEvent(event);
}

void ThumbnailLabel::paintEvent(QPaintEvent* event) {
  QLabel::paintEvent(event);
  if (!outline_.isValid()) return;
  QPainter p(this);
  p.setPen(QPen(outline_, outline_width_));
  const qreal half = outline_width_ / 2.0;
  p.drawRect(QRectF(half, half, width() - outline_width_, height() - outline_width_));
}

}  // namespace hnclip::gui

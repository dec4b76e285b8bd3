#include "widgets/captions/gbar_pair_view.h"

#include <QGridLayout>
#include <QLabel>

#include "widgets/common/thumbnail_label.h"
#include "widgets/common/word_diff_html.h"

namespace hnclip::gui {
namespace {
constexpr int kPairEdge = 180;       // px, each of the pair's images
constexpr int kTextAllowance = 120;  // px beside the two images before the box stops growing
}  // namespace

GbarPairView::GbarPairView(ThumbnailCache* thumbnails, QWidget* parent)
    : QGroupBox(tr("Selected pair"), parent) {
  auto* layout = new QGridLayout(this);
  title_ = new QLabel;
  title_->setWordWrap(true);
  layout->addWidget(title_, 0, 0, 1, 2);
  for (int k = 0; k < 2; ++k) {
    image_[k] = new ThumbnailLabel(thumbnails, kPairEdge);
    text_[k] = new QLabel;
    text_[k]->setWordWrap(true);
    text_[k]->setTextFormat(Qt::RichText);
    text_[k]->setTextInteractionFlags(Qt::TextSelectableByMouse);
    text_[k]->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    text_[k]->setMinimumWidth(kPairEdge);
    layout->addWidget(image_[k], 1, k, Qt::AlignHCenter);
    layout->addWidget(text_[k], 2, k);
  }
  layout->setRowStretch(3, 1);
  setMaximumWidth(2 * kPairEdge + kTextAllowance);
  clear();
}

void GbarPairView::clear() {
  title_->setText(tr("Click a cell to see its two captions side by side."));
  for (int k = 0; k < 2; ++k) {
    image_[k]->setImagePath({});
    text_[k]->clear();
  }
}

void GbarPairView::showPair(double gbar, int epoch, int batch, const Side& a, const Side& b) {
  title_->setText(tr("<b>Ḡ = %1</b> between captions %2 and %3 (epoch %4, batch %5)")
                      .arg(gbar, 0, 'f', 3)
                      .arg(a.caption)
                      .arg(b.caption)
                      .arg(epoch)
                      .arg(batch));
  const Side* sides[2] = {&a, &b};
  for (int k = 0; k < 2; ++k) {
    image_[k]->setImagePath(sides[k]->image_path);
    image_[k]->setToolTip(sides[k]->image_path);
    // Each side marks its own words the other lacks: the other side is in view beside it.
    text_[k]->setText(QStringLiteral("<b>%1</b><br>%2")
                          .arg(sides[k]->caption)
                          .arg(word_diff_html(sides[k]->text, sides[1 - k]->text, false)));
  }
}

QString GbarPairView::sideText(int k) const {
  return k == 0 || k == 1 ? text_[k]->text() : QString();
}

bool GbarPairView::imagesShown() const {
  for (const auto* image : image_) {
    if (!image->imagePath().isEmpty() && !image->hasImage()) return false;
  }
  return true;
}

}  // namespace hnclip::gui

#include "widgets/captions/caption_detail_view.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "widgets/common/thumbnail_cache.h"
#include "widgets/common/thumbnail_label.h"
#include "widgets/common/word_diff_html.h"

namespace hnclip::gui {
namespace {
constexpr int kMainEdge = 256;      // the selected caption's image
constexpr int kNeighborEdge = 128;  // each neighbour's image
const QString kLinkScheme = QStringLiteral("caption:");
}  // namespace

CaptionDetailView::CaptionDetailView(ThumbnailCache* cache, QWidget* parent)
    : QWidget(parent), cache_(cache) {
  setObjectName(QStringLiteral("captionDetail"));
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  main_image_ = new ThumbnailLabel(cache_, kMainEdge, this);
  main_image_->setObjectName(QStringLiteral("selectedImage"));
  top->addWidget(main_image_, 0, Qt::AlignTop);
  main_text_ = new QLabel(this);
  main_text_->setObjectName(QStringLiteral("selectedText"));
  main_text_->setWordWrap(true);
  main_text_->setTextFormat(Qt::RichText);
  main_text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  main_text_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  top->addWidget(main_text_, 1);
  layout->addLayout(top);
  auto* heading = new QLabel(tr("<b>Nearest other captions</b> — what differs from the selected "
                                "caption: its words highlighted, the selected caption's words it "
                                "lacks struck through"),
                             this);
  heading->setObjectName(QStringLiteral("neighborHeading"));
  heading->setWordWrap(true);
  layout->addWidget(heading);
  grid_ = new QGridLayout;
  grid_->setColumnStretch(1, 1);
  layout->addLayout(grid_);
  layout->addStretch(1);
  // Queued: runs after every ThumbnailLabel has taken the image from the same `ready`.
  if (cache_)
    connect(cache_, &ThumbnailCache::ready, this, &CaptionDetailView::checkImagesShown,
            Qt::QueuedConnection);
  setCaption({}, {});
}

ThumbnailLabel* CaptionDetailView::neighborThumbnail(int i) const {
  return i >= 0 && i < static_cast<int>(neighbor_images_.size())
             ? neighbor_images_[static_cast<size_t>(i)]
             : nullptr;
}

QLabel* CaptionDetailView::neighborText(int i) const {
  return i >= 0 && i < static_cast<int>(neighbor_texts_.size())
             ? neighbor_texts_[static_cast<size_t>(i)]
             : nullptr;
}

void CaptionDetailView::clearNeighbors() {
  for (auto* w : neighbor_images_) w->deleteLater();
  for (auto* w : neighbor_texts_) w->deleteLater();
  neighbor_images_.clear();
  neighbor_texts_.clear();
}

void CaptionDetailView::setCaption(const Item& selected, const std::vector<Item>& neighbors) {
  selected_ = selected;
  neighbors_ = neighbors;
  clearNeighbors();
  if (selected.caption < 0) {
    main_image_->setImagePath({});
    main_text_->setText(tr("<i>Select a caption in the list.</i>"));
    shown_reported_ = true;
    return;
  }
  since_set_.start();
  shown_reported_ = false;
  main_image_->setImagePath(selected.image_path);
  main_image_->setToolTip(selected.image_path);
  main_text_->setText(tr("<p><b>Caption #%1</b></p><p>%2</p><p><small>%3</small></p>")
                          .arg(selected.caption)
                          .arg(selected.text.toHtmlEscaped(), selected.image_path.toHtmlEscaped()));
  int row = 0;
  for (const Item& n : neighbors) {
    auto* image = new ThumbnailLabel(cache_, kNeighborEdge, this);
    image->setObjectName(QStringLiteral("neighborImage%1").arg(row));
    image->setImagePath(n.image_path);
    image->setToolTip(tr("Show caption #%1").arg(n.caption));
    image->setCursor(Qt::PointingHandCursor);
    const qint64 id = n.caption;
    connect(image, &ThumbnailLabel::clicked, this, [this, id] { emit captionActivated(id); });
    auto* text = new QLabel(this);
    text->setObjectName(QStringLiteral("neighborText%1").arg(row));
    text->setWordWrap(true);
    text->setTextFormat(Qt::RichText);
    text->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    text->setText(tr("<p><a href=\"%1%2\">#%2</a> &nbsp; cos <b>%3</b></p><p>%4</p>")
                      .arg(kLinkScheme)
                      .arg(n.caption)
                      .arg(n.cosine, 0, 'f', 3)
                      .arg(word_diff_html(n.text, selected.text)));
    connect(text, &QLabel::linkActivated, this, [this](const QString& link) {
      if (link.startsWith(kLinkScheme))
        emit captionActivated(link.mid(kLinkScheme.size()).toLongLong());
    });
    grid_->addWidget(image, row, 0, Qt::AlignTop);
    grid_->addWidget(text, row, 1);
    neighbor_images_.push_back(image);
    neighbor_texts_.push_back(text);
    ++row;
  }
  checkImagesShown();
}

bool CaptionDetailView::allImagesShown() const {
  if (selected_.caption < 0) return true;
  if (!main_image_->hasImage()) return false;
  for (const auto* l : neighbor_images_)
    if (!l->hasImage()) return false;
  return true;
}

void CaptionDetailView::checkImagesShown() {
  if (shown_reported_ || !allImagesShown()) return;
  shown_reported_ = true;
  emit imagesShown(selected_.caption, since_set_.elapsed());
}

}  // namespace hnclip::gui

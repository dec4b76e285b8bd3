#include "widgets/retrieval/retrieval_view.h"

#include <algorithm>

#include <QFrame>
#include <QGridLayout>
#include <QLabel>
#include <QPixmap>
#include <QVBoxLayout>

#include "widgets/common/thumbnail_cache.h"
#include "widgets/common/thumbnail_label.h"

namespace hnclip::gui {

namespace {

constexpr int kOutlineWidth = 4;
constexpr int kCaptionCardWidth =
    140;                             // i2t results: caption cards; k of them fit next to each other
constexpr int kTitlePointDelta = 2;  // the query text a little larger than the rest

QLabel* wrapped_label(const QString& text, QWidget* parent) {
  auto* l = new QLabel(text, parent);
  l->setWordWrap(true);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return l;
}

QString score_text(float score) {
  return std::isnan(score) ? QString() : QString::number(score, 'f', 3);
}

}  // namespace

void RetrievalView::enlarge(ThumbnailLabel* t) {
  // The cache never scales up; benchmark images smaller than a thumbnail (the built-in one's are
  // 48 px) are shown at the thumbnail's size here, aspect kept, so the figure stays readable.
  if (!t->hasImage()) return;
  const QPixmap p = t->pixmap();
  // A scaled-down thumbnail touches the edge on one side; only one that fits inside is enlarged.
  if (p.isNull() || p.width() >= t->edge() || p.height() >= t->edge()) return;
  t->setPixmap(p.scaled(t->edge(), t->edge(), Qt::KeepAspectRatio, Qt::SmoothTransformation));
}

RetrievalView::RetrievalView(ThumbnailCache* cache, QWidget* parent)
    : QWidget(parent), cache_(cache), layout_(new QVBoxLayout(this)) {
  setAutoFillBackground(true);
  // Queued: runs after the labels' own (direct) handlers have set the cache's image.
  if (cache_) {
    connect(
        cache_, &ThumbnailCache::ready, this,
        [this](const QString& path) {
          for (auto* t : findChildren<ThumbnailLabel*>())
            if (t->imagePath() == path) enlarge(t);
        },
        Qt::QueuedConnection);
  }
  clear(tr("Pick two runs and a query."));
}

void RetrievalView::clear(const QString& message) {
  if (body_) {
    layout_->removeWidget(body_);
    body_->deleteLater();
  }
  thumbs_.clear();
  rows_.clear();
  query_thumb_ = nullptr;
  body_ = new QWidget(this);
  auto* l = new QVBoxLayout(body_);
  auto* m = new QLabel(message, body_);
  m->setAlignment(Qt::AlignCenter);
  l->addWidget(m);
  layout_->addWidget(body_);
}

void RetrievalView::setContent(const QString& title, const QString& query_text,
                               const QString& query_image,
                               const std::vector<RetrievalViewRow>& rows) {
  clear();
  layout_->removeWidget(body_);
  body_->deleteLater();
  body_ = new QWidget(this);
  layout_->addWidget(body_);
  rows_ = rows;
  auto* v = new QVBoxLayout(body_);

  auto* heading = new QLabel(title, body_);
  heading->setStyleSheet(QStringLiteral("color: gray;"));
  v->addWidget(heading);
  auto* query = wrapped_label(query_text, body_);
  QFont f = query->font();
  f.setPointSize(f.pointSize() + kTitlePointDelta);
  f.setBold(true);
  query->setFont(f);
  if (!query_image.isEmpty()) {
    auto* h = new QHBoxLayout;
    query_thumb_ = new ThumbnailLabel(cache_, kThumbEdge, body_);
    query_thumb_->setImagePath(query_image);
    enlarge(query_thumb_);
    query_thumb_->setToolTip(query_image);
    h->addWidget(query_thumb_);
    h->addWidget(query, 1);
    v->addLayout(h);
  } else {
    v->addWidget(query);
  }

  auto* grid = new QGridLayout;
  grid->setHorizontalSpacing(8);
  grid->setVerticalSpacing(4);
  int grid_row = 0;
  for (const auto& row : rows) {
    auto* frame = new QFrame(body_);
    frame->setFrameShape(QFrame::HLine);
    frame->setFrameShadow(QFrame::Sunken);
    grid->addWidget(frame, grid_row++, 0, 1, -1);

    // The run's name, the ground truth's rank and any note on one line above its results (a
    // column of its own would take the width k results need).
    auto* name = new QLabel(body_);
    QString header = QStringLiteral("<b><span style='color:%1'>■</span> %2</b>")
                         .arg(row.color.name(), row.run_name.toHtmlEscaped());
    if (!row.rank_text.isEmpty())
      header += QStringLiteral(" &nbsp;·&nbsp; ") + row.rank_text.toHtmlEscaped();
    if (!row.note.isEmpty())
      header += QStringLiteral(" &nbsp;·&nbsp; <i>%1</i>").arg(row.note.toHtmlEscaped());
    name->setText(header);
    name->setWordWrap(true);
    grid->addWidget(name, grid_row++, 0, 1, -1);
    std::vector<ThumbnailLabel*> labels;
    int col = 0;
    for (const auto& item : row.items) {
      const QColor outline = item.ground_truth ? kGroundTruthColor
                             : item.near_twin  ? kNearTwinColor
                                               : QColor();
      if (!item.image_path.isEmpty()) {
        auto* t = new ThumbnailLabel(cache_, kThumbEdge, body_);
        t->setImagePath(item.image_path);
        enlarge(t);
        t->setOutline(outline, kOutlineWidth);
        t->setToolTip(item.tooltip);
        labels.push_back(t);
        grid->addWidget(t, grid_row, col, Qt::AlignCenter);
      } else {
        auto* card = wrapped_label(item.html.isEmpty() ? item.text : item.html, body_);
        card->setTextFormat(item.html.isEmpty() ? Qt::PlainText : Qt::RichText);
        card->setFixedWidth(kCaptionCardWidth);
        QFont small = card->font();
        small.setPointSizeF(small.pointSizeF() - 1);
        card->setFont(small);
        card->setMinimumHeight(kThumbEdge / 2);
        card->setAlignment(Qt::AlignLeft | Qt::AlignTop);
        card->setStyleSheet(outline.isValid()
                                ? QStringLiteral("border: %1px solid %2; padding: 4px;")
                                      .arg(kOutlineWidth)
                                      .arg(outline.name())
                                : QStringLiteral("border: 1px solid palette(mid); padding: 4px;"));
        card->setToolTip(item.tooltip);
        grid->addWidget(card, grid_row, col, Qt::AlignTop);
      }
      QString under = score_text(item.score);
      if (item.ground_truth)
        under += (under.isEmpty() ? QString() : QStringLiteral("  ")) + tr("✓ ground truth");
      if (item.near_twin)
        under += (under.isEmpty() ? QString() : QStringLiteral("  ")) + tr("≈ near-twin");
      // What tells this result's caption from the query's, on a line of its own.
      if (!item.differs.isEmpty())
        under += (under.isEmpty() ? QString() : QStringLiteral("\n")) + QStringLiteral("≠ ") +
                 item.differs;
      auto* s = new QLabel(under, body_);
      s->setObjectName(QStringLiteral("resultNote"));
      s->setWordWrap(true);
      s->setMaximumWidth(std::max(kThumbEdge, kCaptionCardWidth));
      s->setAlignment(Qt::AlignHCenter | Qt::AlignTop);
      if (item.ground_truth)
        s->setStyleSheet(QStringLiteral("color: %1;").arg(kGroundTruthColor.name()));
      else if (item.near_twin)
        s->setStyleSheet(QStringLiteral("color: %1;").arg(kNearTwinColor.name()));
      grid->addWidget(s, grid_row + 1, col);
      ++col;
    }
    thumbs_.push_back(std::move(labels));
    grid_row += 2;
  }
  size_t columns = 0;
  for (const auto& row : rows) columns = std::max(columns, row.items.size());
  grid->setColumnStretch(static_cast<int>(columns), 1);  // results packed to the left
  v->addLayout(grid);
  v->addStretch(1);
}

bool RetrievalView::allImagesShown() const {
  if (query_thumb_ && !query_thumb_->hasImage()) return false;
  for (const auto& row : thumbs_)
    for (const auto* t : row)
      if (!t->hasImage()) return false;
  return true;
}

}  // namespace hnclip::gui

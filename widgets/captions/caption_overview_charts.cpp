#include "widgets/captions/caption_overview_charts.h"

#include <algorithm>

#include <QCheckBox>
#include <QFileDialog>
#include <QGridLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QToolButton>
#include <QVBoxLayout>

#include "qcustomplot.h"
#include "widgets/common/elided_legend_item.h"
#include "widgets/common/hardness_buckets.h"
#include "widgets/common/legend_below.h"
#include "widgets/common/plot_export.h"
#include "widgets/common/plot_style.h"

namespace hnclip::gui {
namespace {

constexpr int kMinChartHeight = 220;
// An explicit minimum width: without one the layout takes QCustomPlot's own hint, which grows
// with the legend's longest entry, an encoder's label (a run's name: 655 pixels for 90
// characters, three charts side by side).
constexpr int kMinChartWidth = 180;
constexpr int kExportWidth = 800;  // export size when the chart is not on screen
constexpr int kExportHeight = 500;
constexpr double kPenWidth = 1.6;
constexpr double kHistogramPad = 0.03;     // cosine units either side of the non-empty bins
constexpr double kMinHistogramSpan = 0.2;  // narrowest x range: a spike still reads as one
constexpr int kTickLabelChars = 16;        // the bucket chart's encoder labels wrap after this
constexpr double kStackedBarWidth = 0.6;
constexpr double kGroupedBarWidth = 0.14;  // log scale: five bars side by side per encoder

QString chart_title(const QString& name) {
  if (name == QLatin1String("pairwise")) return QObject::tr("All pairwise caption cosines");
  if (name == QLatin1String("hardest")) return QObject::tr("Hardest-neighbour cosine per caption");
  return QObject::tr("In-batch negatives by hardness");
}

// A label broken into lines of about `chars` characters at spaces, so that two encoders' labels
// under the bucket chart never run into each other.
QString wrapped(const QString& label, int chars) {
  QStringList lines;
  QString line;
  for (const QString& word : label.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
    if (!line.isEmpty() && line.size() + 1 + word.size() > chars) {
      lines << line;
      line.clear();
    }
    line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
  }
  if (!line.isEmpty()) lines << line;
  return lines.join(QLatin1Char('\n'));
}

}  // namespace

CaptionOverviewCharts::CaptionOverviewCharts(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* grid = new QGridLayout;
  layout->addLayout(grid, 1);
  int column = 0;
  for (const QString& name : chartNames()) {
    auto* box = new QVBoxLayout;
    auto* header = new QHBoxLayout;
    auto* title =
        new QLabel(QStringLiteral("<b>%1</b>").arg(chart_title(name).toHtmlEscaped()), this);
    // Three charts stand side by side: unwrapped, their titles alone made the page 959 pixels
    // wide at the least.
    title->setWordWrap(true);
    header->addWidget(title, 1);
    if (name == QLatin1String("buckets")) {
      // The ≥ 0.9 bucket is a sliver beside "<0.5" on a linear axis; a log axis shows it.
      log_scale_ = new QCheckBox(tr("log scale"), this);
      log_scale_->setObjectName(QStringLiteral("bucketsLogScale"));
      log_scale_->setToolTip(tr("Logarithmic axis, buckets side by side: the hard buckets show"));
      connect(log_scale_, &QCheckBox::toggled, this, [this] { drawBuckets(); });
      header->addWidget(log_scale_);
    }
    auto* export_button = new QToolButton(this);
    export_button->setText(tr("Export"));
    export_button->setPopupMode(QToolButton::InstantPopup);
    export_button->setObjectName(QStringLiteral("export_") + name);
    auto* menu = new QMenu(export_button);
    for (const QString& format :
         {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")}) {
      menu->addAction(tr("%1…").arg(format.toUpper()), this, [this, name, format] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export %1").arg(chart_title(name)), QStringLiteral("%1.%2").arg(name, format),
            QStringLiteral("%1 (*.%2)").arg(format.toUpper(), format));
        if (path.isEmpty()) return;
        QString error;
        if (!exportChart(name, path, &error))
          QMessageBox::warning(this, tr("Export failed"), error);
      });
    }
    export_button->setMenu(menu);
    header->addWidget(export_button);
    box->addLayout(header);
    auto* plot = new QCustomPlot(this);
    plot->setObjectName(QStringLiteral("chart_") + name);
    plot->setMinimumSize(kMinChartWidth, kMinChartHeight);
    styleAxes(plot);
    box->addWidget(plot, 1);
    grid->addLayout(box, 0, column++);
    if (name == QLatin1String("pairwise"))
      pairwise_ = plot;
    else if (name == QLatin1String("hardest"))
      hardest_ = plot;
    else
      buckets_ = plot;
  }
  table_ = new QLabel(this);
  table_->setObjectName(QStringLiteral("tableA1"));
  table_->setTextFormat(Qt::RichText);
  table_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  table_->setWordWrap(true);
  layout->addWidget(table_);
  setEntries({});
}

QStringList CaptionOverviewCharts::chartNames() {
  return {QStringLiteral("pairwise"), QStringLiteral("hardest"), QStringLiteral("buckets")};
}

QCustomPlot* CaptionOverviewCharts::chart(const QString& name) const {
  if (name == QLatin1String("pairwise")) return pairwise_;
  if (name == QLatin1String("hardest")) return hardest_;
  if (name == QLatin1String("buckets")) return buckets_;
  return nullptr;
}

void CaptionOverviewCharts::styleAxes(QCustomPlot* plot) {
  apply_plot_palette(plot, palette());
  apply_plot_fonts(plot, font());
  plot->legend->setIconSize(20, 10);
  // Three charts share the tab's width: a legend inside the axes would cover the histograms,
  // so each lists its series below the axes instead, and only while it has some (an empty one
  // in the layout squeezed the axes to 50 pixels while a geometry loaded).
  plot->legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
  plot->legend->setWrap(0);
  place_legend_below(plot);
}

void CaptionOverviewCharts::setEntries(const std::vector<Entry>& entries) {
  entries_ = entries;
  drawHistogram(pairwise_, false);
  drawHistogram(hardest_, true);
  drawBuckets();
  // pre-wrap: the columns stay aligned, and a row whose encoder is a long run name wraps at a
  // space instead of widening the page (a 90-character name made the window 1503 pixels wide).
  table_->setText(tableRowText().isEmpty()
                      ? tr("<i>No geometry loaded.</i>")
                      : QStringLiteral("<pre style=\"white-space: pre-wrap\">%1</pre>")
                            .arg(tableRowText().toHtmlEscaped()));
}

void CaptionOverviewCharts::drawHistogram(QCustomPlot* plot, bool hardest) {
  plot->clearGraphs();
  plot->clearItems();
  double top = 0;
  double lowest = 1.0;    // left edge of the lowest non-empty bin over all entries
  double highest = -1.0;  // right edge of the highest
  for (const auto& e : entries_) {
    const auto& counts = hardest ? e.stats.hardest_histogram : e.stats.pairwise_histogram;
    if (counts.empty()) continue;
    // Fractions, not counts: the pairwise histogram has N(N-1)/2 entries, the hardest one N.
    double total = 0;
    for (const auto c : counts) total += static_cast<double>(c);
    if (total <= 0) continue;
    const double bin = 2.0 / static_cast<double>(counts.size());
    QVector<double> x, y;
    for (size_t i = 0; i < counts.size(); ++i) {
      x << -1.0 + (static_cast<double>(i) + 0.5) * bin;
      y << static_cast<double>(counts[i]) / total;
      if (counts[i] > 0) {
        lowest = std::min(lowest, -1.0 + static_cast<double>(i) * bin);
        highest = std::max(highest, -1.0 + static_cast<double>(i + 1) * bin);
      }
      top = std::max(top, y.back());
    }
    auto* graph = plot->addGraph();
    graph->setData(x, y, true);
    graph->setLineStyle(QCPGraph::lsStepCenter);
    graph->setPen(QPen(e.color, kPenWidth));
    QColor fill = e.color;
    fill.setAlpha(50);
    graph->setBrush(fill);
    const double mean = hardest ? e.stats.mean_hardest : e.stats.mean_pairwise;
    graph->setName(tr("%1 (mean %2)").arg(e.label).arg(mean, 0, 'f', 3));
    // Elided in the middle: the mean at the end stays readable beside a long encoder name.
    graph->removeFromLegend();
    plot->legend->addItem(new ElidedLegendItem(plot->legend, graph));
    auto* line = new QCPItemStraightLine(plot);
    line->point1->setCoords(mean, 0);
    line->point2->setCoords(mean, 1);
    line->setPen(QPen(e.color, kPenWidth, Qt::DotLine));
  }
  plot->xAxis->setLabel(tr("cosine"));
  plot->yAxis->setLabel(hardest ? tr("fraction of captions") : tr("fraction of pairs"));
  // The range fits the non-empty bins (hardest-neighbour cosines crowd near 1: a [0, 1] axis
  // squeezed them into a corner).
  if (highest < lowest) {
    lowest = 0.0;
    highest = 1.0;
  }
  double lo = std::max(-1.0, lowest - kHistogramPad), hi = std::min(1.0, highest + kHistogramPad);
  if (hi - lo < kMinHistogramSpan) {
    const double mid = 0.5 * (lo + hi);
    lo = std::max(-1.0, mid - 0.5 * kMinHistogramSpan);
    hi = std::min(1.0, lo + kMinHistogramSpan);
  }
  plot->xAxis->setRange(lo, hi);
  plot->yAxis->setRange(0, top > 0 ? top * 1.1 : 1.0);
  place_legend_below(plot);
  plot->replot(QCustomPlot::rpQueuedReplot);
}

void CaptionOverviewCharts::drawBuckets() {
  buckets_->clearPlottables();
  buckets_->clearItems();
  for (auto* old : buckets_->findChildren<QCPBarsGroup*>()) delete old;
  const bool log = bucketsLogScale();
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  double top = 0;
  double smallest = 0;  // the smallest non-zero value: where a log axis starts
  int64_t batch = 0;
  std::vector<QCPBars*> layers;
  // Linear: stacked, one bar per encoder. Log: stacking would hide the small buckets on top of
  // the large one, so the five stand side by side.
  auto* group = log ? new QCPBarsGroup(buckets_) : nullptr;
  for (int b = 0; b < 5; ++b) {
    auto* bars = new QCPBars(buckets_->xAxis, buckets_->yAxis);
    bars->setName(hardness_bucket_name(b));
    bars->setPen(QPen(hardness_bucket_color(b).darker(130)));
    bars->setBrush(hardness_bucket_color(b));
    bars->setWidth(log ? kGroupedBarWidth : kStackedBarWidth);
    if (group)
      bars->setBarsGroup(group);
    else if (!layers.empty())
      bars->moveAbove(layers.back());
    layers.push_back(bars);
  }
  std::vector<QStringList> per_bucket(5);  // expected counts per entry, for the legend
  for (size_t i = 0; i < entries_.size(); ++i) {
    const auto& s = entries_[i].stats;
    ticker->addTick(static_cast<double>(i), wrapped(entries_[i].label, kTickLabelChars));
    batch = s.batch_size;
    // Expected negatives of one random batch of B: fraction x B(B-1) ordered pairs.
    const double pairs = static_cast<double>(s.batch_size) * static_cast<double>(s.batch_size - 1);
    double sum = 0;
    for (int b = 0; b < 5 && b < static_cast<int>(s.bucket_fractions.size()); ++b) {
      const double v = s.bucket_fractions[static_cast<size_t>(b)] * pairs;
      layers[static_cast<size_t>(b)]->addData(static_cast<double>(i), v);
      per_bucket[static_cast<size_t>(b)] << QString::number(v, 'f', v < 10 ? 2 : 0);
      sum += v;
      if (v > 0 && (smallest == 0 || v < smallest)) smallest = v;
      if (log) top = std::max(top, v);
    }
    if (!log) top = std::max(top, sum);
  }
  // The hard buckets are thin slivers next to "<0.5": the legend states their sizes.
  for (int b = 0; b < kHardnessBuckets; ++b) {
    if (per_bucket[static_cast<size_t>(b)].isEmpty()) continue;
    layers[static_cast<size_t>(b)]->setName(QStringLiteral("%1: %2").arg(
        hardness_bucket_name(b), per_bucket[static_cast<size_t>(b)].join(QStringLiteral(" / "))));
  }
  buckets_->xAxis->setTicker(ticker);
  buckets_->xAxis->setRange(-0.6,
                            std::max<double>(1.0, static_cast<double>(entries_.size())) - 0.4);
  buckets_->yAxis->setLabel(batch > 0 ? tr("expected negatives per batch (B=%1)").arg(batch)
                                      : tr("expected negatives per batch"));
  if (log) {
    buckets_->yAxis->setScaleType(QCPAxis::stLogarithmic);
    buckets_->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    const double lower = smallest > 0 ? smallest / 3 : 1e-3;
    buckets_->yAxis->setRange(lower, top > lower ? top * 2 : lower * 10);
  } else {
    buckets_->yAxis->setScaleType(QCPAxis::stLinear);
    buckets_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    buckets_->yAxis->setRange(0, top > 0 ? top * 1.05 : 1.0);
  }
  if (entries_.empty()) buckets_->legend->clearItems();  // bucket swatches of nothing
  place_legend_below(buckets_);
  buckets_->replot(QCustomPlot::rpQueuedReplot);
}

void CaptionOverviewCharts::setBucketsLogScale(bool on) { log_scale_->setChecked(on); }

bool CaptionOverviewCharts::bucketsLogScale() const { return log_scale_->isChecked(); }

QString CaptionOverviewCharts::tableRowText() const {
  QStringList rows;
  if (entries_.empty()) return {};
  rows << tr("%1 %2 %3 %4 %5 %6 %7 %8  %9")
              .arg(tr("train img"), 9)
              .arg(tr("test img"), 9)
              .arg(tr("captions"), 9)
              .arg(tr("words"), 6)
              .arg(tr("pairwise"), 9)
              .arg(tr("hardest"), 8)
              .arg(tr("median"), 7)
              .arg(tr("\u22650.9 share"), 11)
              .arg(tr("encoder"));
  for (const auto& e : entries_) {
    const auto& s = e.stats;
    const double top_share = s.bucket_fractions.size() >= 5 ? s.bucket_fractions[4] : 0.0;
    rows << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8  %9")
                .arg(s.train_images, 9)
                .arg(s.test_images, 9)
                .arg(s.captions, 9)
                .arg(s.mean_words, 6, 'f', 1)
                .arg(s.mean_pairwise, 9, 'f', 3)
                .arg(s.mean_hardest, 8, 'f', 3)
                .arg(s.median_hardest, 7, 'f', 3)
                .arg(top_share, 11, 'e', 2)
                .arg(e.label);
  }
  return rows.join(QLatin1Char('\n'));
}

bool CaptionOverviewCharts::exportChart(const QString& name, const QString& path,
                                        QString* error) const {
  QCustomPlot* p = chart(name);
  if (!p) {
    if (error)
      *error =
          tr("unknown chart '%1' (known: %2)").arg(name, chartNames().join(QStringLiteral(", ")));
    return false;
  }
  const bool on_screen = p->isVisible() && p->width() >= 200;
  return save_plot(p, path, on_screen ? p->width() : kExportWidth,
                   on_screen ? p->height() : kExportHeight, chart_title(name), error);
}

}  // namespace hnclip::gui

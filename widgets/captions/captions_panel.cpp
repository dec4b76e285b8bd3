#include "widgets/captions/captions_panel.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "widgets/captions/caption_detail_view.h"
#include "widgets/captions/caption_geometry_loader.h"
#include "widgets/captions/caption_list_model.h"
#include "widgets/captions/caption_overview_charts.h"
#include "widgets/captions/caption_source_bar.h"
#include "widgets/captions/near_duplicate_pairs_csv.h"
#include "widgets/common/thumbnail_cache.h"

namespace hnclip::gui {
namespace {

constexpr int kProgressPollMs = 100;           // progress bar refresh while loading
const QColor kPrimaryColor(0x25, 0x63, 0xeb);  // the selected encoder, when it is no run's
const QColor kOverlayColor(0xea, 0x58, 0x0c);  // the overlaid one, likewise

}  // namespace

CaptionsPanel::CaptionsPanel(QString database, QString cache_dir, ThumbnailCache* thumbnails,
                             QWidget* parent)
    : QWidget(parent),
      database_(std::move(database)),
      cache_dir_(std::move(cache_dir)),
      thumbs_(thumbnails) {
  setObjectName(QStringLiteral("captionsPanel"));
  if (!thumbs_)
    thumbs_ = new ThumbnailCache(QDir(cache_dir_).filePath(QStringLiteral("thumbnails")),
                                 64LL << 20, this);
  loader_ = new CaptionGeometryLoader(database_, cache_dir_, this);
  connect(loader_, &CaptionGeometryLoader::finished, this, &CaptionsPanel::applyResult);
  buildUi();
}

CaptionsPanel::~CaptionsPanel() = default;  // the loader cancels a load in flight

void CaptionsPanel::buildUi() {
  auto* layout = new QVBoxLayout(this);
  source_bar_ = new CaptionSourceBar(cache_dir_, this);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, CaptionGeometryLoader::kProgressSteps);
  progress_->setMaximumWidth(180);
  // The status line says what is loading; a percentage beside it read "100%" while the result
  // was still being handed over.
  progress_->setTextVisible(false);
  progress_->setVisible(false);
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setObjectName(QStringLiteral("captionCancel"));
  cancel_->setVisible(false);
  layout->addWidget(source_bar_);
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("captionStatus"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // The progress of a load stands beside the status line that says what is loading, not in the
  // source bar: there they made the bar 996 pixels wide while a load ran, and the window, grown
  // to fit, stayed wider than a 1024-pixel screen after it.
  auto* status_row = new QHBoxLayout;
  status_row->addWidget(status_, 1);
  status_row->addWidget(progress_);
  status_row->addWidget(cancel_);
  layout->addLayout(status_row);

  pages_ = new QTabWidget(this);
  pages_->setObjectName(QStringLiteral("captionPages"));
  layout->addWidget(pages_, 1);

  // Overview.
  auto* overview = new QWidget(pages_);
  auto* ov = new QVBoxLayout(overview);
  charts_ = new CaptionOverviewCharts(overview);
  ov->addWidget(charts_, 1);
  auto* pairs = new QPushButton(tr("Near-duplicate pairs as CSV…"), overview);
  pairs->setObjectName(QStringLiteral("exportPairs"));
  connect(pairs, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Near-duplicate pairs"), QStringLiteral("near-duplicates.csv"), tr("CSV (*.csv)"));
    QString error;
    if (!path.isEmpty() && !exportPairsCsv(path, &error))
      QMessageBox::warning(this, tr("Export failed"), error);
  });
  auto* pairs_row = new QHBoxLayout;
  pairs_row->addWidget(pairs);
  pairs_row->addStretch(1);
  ov->addLayout(pairs_row);
  pages_->addTab(overview, tr("Overview"));

  // Captions: list | detail.
  auto* captions = new QSplitter(Qt::Horizontal, pages_);
  captions->setObjectName(QStringLiteral("captionSplitter"));
  auto* list_side = new QWidget(captions);
  auto* ls = new QVBoxLayout(list_side);
  ls->setContentsMargins(0, 0, 0, 0);
  search_ = new QLineEdit(list_side);
  search_->setObjectName(QStringLiteral("captionSearch"));
  search_->setPlaceholderText(tr("Filter captions (Ctrl+F)"));
  search_->setClearButtonEnabled(true);
  ls->addWidget(search_);
  model_ = new CaptionListModel(this);
  proxy_ = new QSortFilterProxyModel(this);
  CaptionListModel::configureProxy(proxy_);
  proxy_->setSourceModel(model_);
  table_ = new QTableView(list_side);
  table_->setObjectName(QStringLiteral("captionList"));
  table_->setModel(proxy_);
  CaptionListModel::configureView(table_);
  ls->addWidget(table_, 1);
  connect(search_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (syncing_selection_ || !current.isValid()) return;
            selectCaption(current.data(CaptionListModel::CaptionIdRole).toLongLong());
          });

  auto* detail_side = new QWidget(captions);
  auto* ds = new QVBoxLayout(detail_side);
  ds->setContentsMargins(0, 0, 0, 0);
  auto* nav = new QHBoxLayout;
  back_ = new QToolButton(detail_side);
  back_->setObjectName(QStringLiteral("captionBack"));
  back_->setArrowType(Qt::LeftArrow);
  back_->setToolTip(tr("Back (Alt+Left)"));
  forward_ = new QToolButton(detail_side);
  forward_->setObjectName(QStringLiteral("captionForward"));
  forward_->setArrowType(Qt::RightArrow);
  forward_->setToolTip(tr("Forward (Alt+Right)"));
  connect(back_, &QToolButton::clicked, this, &CaptionsPanel::goBack);
  connect(forward_, &QToolButton::clicked, this, &CaptionsPanel::goForward);
  auto* save_view = new QPushButton(tr("Save view as PNG…"), detail_side);
  save_view->setObjectName(QStringLiteral("saveDetail"));
  connect(save_view, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save detail view"), QStringLiteral("caption-%1.png").arg(currentCaption()),
        tr("PNG (*.png)"));
    QString error;
    if (!path.isEmpty() && !saveDetailPng(path, &error))
      QMessageBox::warning(this, tr("Save failed"), error);
  });
  nav->addWidget(back_);
  nav->addWidget(forward_);
  nav->addStretch(1);
  nav->addWidget(save_view);
  ds->addLayout(nav);
  auto* scroll = new QScrollArea(detail_side);
  scroll->setWidgetResizable(true);
  detail_ = new CaptionDetailView(thumbs_, scroll);
  scroll->setWidget(detail_);
  ds->addWidget(scroll, 1);
  connect(detail_, &CaptionDetailView::captionActivated, this, &CaptionsPanel::selectCaption);
  connect(detail_, &CaptionDetailView::imagesShown, this, &CaptionsPanel::detailImagesShown);
  captions->addWidget(list_side);
  captions->addWidget(detail_side);
  captions->setStretchFactor(0, 2);
  captions->setStretchFactor(1, 3);
  pages_->addTab(captions, tr("Captions"));

  auto* back_action = new QAction(tr("Back"), this);
  back_action->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Left));
  back_action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  connect(back_action, &QAction::triggered, this, &CaptionsPanel::goBack);
  addAction(back_action);
  auto* forward_action = new QAction(tr("Forward"), this);
  forward_action->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Right));
  forward_action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  connect(forward_action, &QAction::triggered, this, &CaptionsPanel::goForward);
  addAction(forward_action);
  updateHistoryButtons();

  poll_ = new QTimer(this);
  poll_->setInterval(kProgressPollMs);
  connect(poll_, &QTimer::timeout, this, [this] {
    if (loader_->busy()) progress_->setValue(loader_->progress());
  });
  connect(cancel_, &QPushButton::clicked, this, &CaptionsPanel::cancel);

  connect(source_bar_, &CaptionSourceBar::changed, this, &CaptionsPanel::reload);
}

void CaptionsPanel::addPage(QWidget* page, const QString& title) { pages_->addTab(page, title); }

void CaptionsPanel::showCaptionsPage() { pages_->setCurrentIndex(1); }

void CaptionsPanel::setEncoder(const QString& encoder) { source_bar_->setEncoder(encoder); }
void CaptionsPanel::setOverlayEncoder(const QString& encoder) {
  source_bar_->setOverlayEncoder(encoder);
}
QString CaptionsPanel::encoder() const { return source_bar_->encoder(); }
QString CaptionsPanel::overlayEncoder() const { return source_bar_->overlayEncoder(); }
void CaptionsPanel::setFormConfig(const hnclip::TrainConfig& config) {
  source_bar_->setFormConfig(config);
}
QString CaptionsPanel::benchmarkNote() const { return source_bar_->benchmarkNote(); }

void CaptionsPanel::refreshRuns() {
  const std::string db = database_.toStdString(), cache = cache_dir_.toStdString();
  auto* watcher = new QFutureWatcher<std::vector<CaptionRunChoice>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
    watcher->deleteLater();
    source_bar_->setRuns(watcher->result());
    // A run:ID encoder may have brought its run's benchmark: load that, if anything is shown.
    if (data_ || loader_->busy()) reload();
    emit runsRefreshed();
  });
  watcher->setFuture(QtConcurrent::run([db, cache] {
    try {
      return load_caption_run_choices(db, cache);
    } catch (const std::exception&) {
      return std::vector<CaptionRunChoice>{};  // no store yet: only the Train form's benchmark
    }
  }));
}

bool CaptionsPanel::busy() const { return loader_->busy(); }

void CaptionsPanel::cancel() {
  if (!loader_->busy()) return;
  loader_->cancel();
  reload_pending_ = false;
  setStatus(tr("Cancelling…"));
}

QString CaptionsPanel::choicesKey() const { return source_bar_->choicesKey(); }

void CaptionsPanel::reload() {
  const QString key = choicesKey();
  if (loader_->busy()) {
    if (loader_->key() == key) return;
    loader_->cancel();  // superseded: start again once it has stopped
    reload_pending_ = true;
    return;
  }
  if (key == loaded_key_ && data_) return;
  startLoad();
}

void CaptionsPanel::startLoad() {
  reload_pending_ = false;
  const CaptionSource source = source_bar_->source(encoder());
  std::optional<CaptionSource> overlay;
  if (!overlayEncoder().isEmpty()) overlay = source_bar_->source(overlayEncoder());
  progress_->setValue(0);
  progress_->setVisible(true);
  cancel_->setVisible(true);
  poll_->start();
  // Labels as the boxes show them: the store's keys ("synthetic:size=default:seed=1#test under
  // init:/…/tiny-synthetic-pretrained.pt") are for matching, not reading.
  setStatus(tr("Loading the caption geometry of %1 under %2…")
                .arg(source_bar_->dataLabel(), source_bar_->encoderLabel()));
  loader_->start(choicesKey(), source, overlay);
}

void CaptionsPanel::applyResult(const CaptionLoadOutcome& result) {
  poll_->stop();
  progress_->setVisible(false);
  cancel_->setVisible(false);
  if (reload_pending_) {
    startLoad();
    return;
  }
  if (result.cancelled) {
    setStatus(tr("Cancelled — nothing was stored."));
    return;
  }
  if (!result.error.isEmpty()) {
    setStatus(result.error, true);
    emit loadFailed(result.error);
    return;
  }
  data_ = result.main;
  loaded_key_ = result.key;
  std::vector<CaptionOverviewCharts::Entry> entries;
  entries.push_back({source_bar_->encoderLabel(), data_->record.stats,
                     caption_encoder_color(encoder(), kPrimaryColor)});
  if (result.overlay)
    entries.push_back({source_bar_->overlayLabel(), result.overlay->record.stats,
                       caption_encoder_color(overlayEncoder(), kOverlayColor)});
  charts_->setEntries(entries);
  std::vector<int64_t> nearest(data_->texts.size(), -1);
  for (size_t c = 0; c < nearest.size(); ++c) {
    const auto rows = data_->neighbors(static_cast<int64_t>(c));
    if (!rows.empty()) nearest[c] = rows.front()->neighbor;
  }
  model_->setCaptions(data_->texts, data_->hardest, nearest);
  history_.clear();
  shown_caption_ = -1;
  detail_->setCaption({}, {});
  updateHistoryButtons();
  setStatus(tr("%1 captions of %2 under %3 — %4 in %5 s")
                .arg(data_->record.stats.captions)
                .arg(source_bar_->dataLabel(), source_bar_->encoderLabel())
                .arg(data_->computed ? tr("computed and stored") : tr("read from the store"))
                .arg(result.elapsed_ms / 1000.0, 0, 'f', 1));
  emit geometryLoaded();
  if (pending_caption_ >= 0) {
    const qint64 c = pending_caption_;
    pending_caption_ = -1;
    selectCaption(c);
  }
}

void CaptionsPanel::setStatus(const QString& text, bool error) {
  status_->setText(
      error ? QStringLiteral("<span style=\"color:#dc2626\">%1</span>").arg(text.toHtmlEscaped())
            : text.toHtmlEscaped());
  status_->setProperty("plainText", text);
}

QString CaptionsPanel::statusText() const { return status_->property("plainText").toString(); }

void CaptionsPanel::selectCaption(qint64 caption) {
  if (!data_ || !data_->catalog) {
    pending_caption_ = caption;
    return;
  }
  if (caption < 0 || caption >= data_->catalog->num_captions() || caption == shown_caption_) return;
  history_.visit(caption);
  showCaption(caption);
}

qint64 CaptionsPanel::currentCaption() const { return shown_caption_; }

void CaptionsPanel::goBack() {
  if (history_.canGoBack()) showCaption(history_.back());
}

void CaptionsPanel::goForward() {
  if (history_.canGoForward()) showCaption(history_.forward());
}

void CaptionsPanel::updateHistoryButtons() {
  back_->setEnabled(canGoBack());
  forward_->setEnabled(canGoForward());
}

void CaptionsPanel::showCaption(qint64 caption) {
  shown_caption_ = caption;
  const auto& catalog = *data_->catalog;
  CaptionDetailView::Item selected{caption, data_->texts[static_cast<size_t>(caption)],
                                   QString::fromStdString(catalog.caption_image_path(caption)),
                                   1.0};
  std::vector<CaptionDetailView::Item> neighbors;
  for (const auto* row : data_->neighbors(caption)) {
    if (row->neighbor < 0 || row->neighbor >= catalog.num_captions()) continue;
    neighbors.push_back({row->neighbor, data_->texts[static_cast<size_t>(row->neighbor)],
                         QString::fromStdString(catalog.caption_image_path(row->neighbor)),
                         row->cosine});
  }
  detail_->setCaption(selected, neighbors);
  selectRow(caption);
  updateHistoryButtons();
}

void CaptionsPanel::selectRow(qint64 caption) {
  const QModelIndex source = model_->index(static_cast<int>(caption), 0);
  const QModelIndex index = proxy_->mapFromSource(source);
  if (!index.isValid()) return;  // filtered out: the detail still shows it
  syncing_selection_ = true;
  table_->selectionModel()->setCurrentIndex(
      index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  table_->scrollTo(index);
  syncing_selection_ = false;
}

bool CaptionsPanel::focusSearch() {
  showCaptionsPage();
  search_->setFocus(Qt::ShortcutFocusReason);
  search_->selectAll();
  return true;
}

// Queued: at start-up the tab is restored before the Train form's configuration is. Pages added
// by the window that are tabs themselves (the Ḡ heatmaps) are activated with it.
void CaptionsPanel::activated() {
  QTimer::singleShot(0, this, [this] {
    if (!isVisibleTo(window())) return;  // another tab was chosen meanwhile
    if (form_config_source_) setFormConfig(form_config_source_());
    refreshRuns();
    reload();
    for (int i = 0; i < pages_->count(); ++i) {
      if (auto* page = dynamic_cast<WorkbenchTab*>(pages_->widget(i))) page->activated();
    }
  });
}

bool CaptionsPanel::showPage(const QString& name) {
  for (int i = 0; i < pages_->count(); ++i) {
    if (pages_->tabText(i).remove(QLatin1Char('&')).compare(name, Qt::CaseInsensitive) == 0 ||
        pages_->widget(i)->objectName().compare(name, Qt::CaseInsensitive) == 0) {
      pages_->setCurrentIndex(i);
      return true;
    }
  }
  return false;
}

int CaptionsPanel::detailNeighborCount() const { return detail_->neighborCount(); }

bool CaptionsPanel::exportChart(const QString& chart, const QString& path, QString* error) const {
  return charts_->exportChart(chart, path, error);
}

bool CaptionsPanel::exportPairsCsv(const QString& path, QString* error) const {
  if (!data_) {
    if (error) *error = tr("no caption geometry is loaded");
    return false;
  }
  return write_near_duplicate_pairs_csv(path, data_->record, data_->texts, error);
}

bool CaptionsPanel::saveDetailPng(const QString& path, QString* error) const {
  if (!detail_->grab().save(path, "PNG")) {
    if (error) *error = tr("%1: could not write the picture").arg(path);
    return false;
  }
  return true;
}

QString CaptionsPanel::exportInteractive() {
  QStringList items;
  for (const QString& c : CaptionOverviewCharts::chartNames()) items << tr("Chart: %1").arg(c);
  items << tr("Near-duplicate pairs (CSV)") << tr("Detail view (PNG)");
  bool ok = false;
  const QString item = QInputDialog::getItem(this, tr("Export"), tr("What:"), items, 0, false, &ok);
  if (!ok) return {};
  const int which = items.indexOf(item);
  const int charts = static_cast<int>(CaptionOverviewCharts::chartNames().size());
  QString error;
  if (which < charts) {
    const QString name = CaptionOverviewCharts::chartNames().at(which);
    const QString path = QFileDialog::getSaveFileName(this, item, name + QStringLiteral(".png"),
                                                      tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
    if (!path.isEmpty() && !exportChart(name, path, &error))
      QMessageBox::warning(this, tr("Export failed"), error);
  } else if (which == charts) {
    const QString path = QFileDialog::getSaveFileName(
        this, item, QStringLiteral("near-duplicates.csv"), tr("CSV (*.csv)"));
    if (!path.isEmpty() && !exportPairsCsv(path, &error))
      QMessageBox::warning(this, tr("Export failed"), error);
  } else {
    const QString path =
        QFileDialog::getSaveFileName(this, item, QStringLiteral("caption.png"), tr("PNG (*.png)"));
    if (!path.isEmpty() && !saveDetailPng(path, &error))
      QMessageBox::warning(this, tr("Export failed"), error);
  }
  return {};  // failures were shown; success is visible in the file chosen
}

}  // namespace hnclip::gui

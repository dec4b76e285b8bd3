#pragma once
// CaptionsPanel: the Captions tab — how alike the captions of a benchmark split are under a text
// encoder (paper Fig. 1, A1, A6, Table A1). Pages: Overview (histograms, in-batch hardness, the
// Table-A1 row; a second encoder overlaid), Captions (every caption with its hardest-neighbour
// cosine, filterable; the selected caption's detail with its nearest captions and their images,
// back/forward history), and pages added by the window (addPage; e.g. the Ḡ heatmaps).
// Everything shown is read from the RunStore; geometry the store lacks is computed and stored on a
// worker thread with progress and a Cancel that takes effect within a second.
// Threading: GUI thread; store reads and computation run on QtConcurrent workers.

#include <cstdint>
#include <memory>
#include <vector>

#include <QString>
#include <QWidget>

#include <functional>

#include "train/train_config.h"
#include "widgets/captions/caption_history.h"
#include "widgets/captions/caption_view_data.h"
#include "widgets/common/workbench_tab.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QTimer;
class QToolButton;

namespace hnclip::gui {

class CaptionDetailView;
class CaptionGeometryLoader;
struct CaptionLoadOutcome;
class CaptionListModel;
class CaptionOverviewCharts;
class CaptionSourceBar;
class ThumbnailCache;

class CaptionsPanel : public QWidget, public WorkbenchTab {
  Q_OBJECT

 public:
  // `thumbnails`: a cache shared with other tabs; null = the panel makes its own, on disk under
  // <cache_dir>/thumbnails.
  CaptionsPanel(QString database, QString cache_dir, ThumbnailCache* thumbnails = nullptr,
                QWidget* parent = nullptr);
  ~CaptionsPanel() override;

  // WorkbenchTab: activation rereads the Train form's configuration (through the source set
  // below), the runs and what the choices name; nothing is persisted.
  void activated() override;
  QString exportInteractive() override;  // asks what and where
  bool focusSearch() override;
  void saveState(QSettings&) const override {}
  void restoreState(QSettings&) override {}
  void setFormConfigSource(std::function<hnclip::TrainConfig()> source) {
    form_config_source_ = std::move(source);
  }

  void addPage(QWidget* page, const QString& title);
  QTabWidget* pages() const { return pages_; }
  void showCaptionsPage();
  bool showPage(const QString& name);  // by title or object name ("overview", "heatmaps")
  int detailNeighborCount() const;

  // The Train form's configuration: the benchmark offered first ("as in the Train form").
  void setFormConfig(const hnclip::TrainConfig& config);
  // Text encoder as run:ID | ckpt:PATH | init:pretrained (added to the choices if new); "" = none.
  // A run's checkpoint brings the benchmark that run trained on (CaptionSourceBar).
  void setEncoder(const QString& encoder);
  void setOverlayEncoder(const QString& encoder);
  QString encoder() const;
  QString overlayEncoder() const;
  // "" while the Train form's benchmark is shown, else the visible line saying whose it is.
  QString benchmarkNote() const;
  // Reads the stored runs (off the GUI thread) to offer their benchmarks and checkpoints.
  void refreshRuns();
  // Loads what the choices name (no-op when it is what is shown or being loaded).
  void reload();
  bool busy() const;
  void cancel();

  // The caption to show; remembered until the geometry has loaded. Pushes it on the history.
  void selectCaption(qint64 caption);
  qint64 currentCaption() const;
  bool canGoBack() const { return history_.canGoBack(); }
  bool canGoForward() const { return history_.canGoForward(); }
  void goBack();
  void goForward();

  const CaptionViewData* data() const { return data_.get(); }
  CaptionListModel* listModel() const { return model_; }
  QSortFilterProxyModel* listProxy() const { return proxy_; }
  QTableView* listView() const { return table_; }
  CaptionDetailView* detailView() const { return detail_; }
  CaptionOverviewCharts* charts() const { return charts_; }
  ThumbnailCache* thumbnails() const { return thumbs_; }
  QString statusText() const;

  // Exports; false with `error` naming the path or the problem.
  bool exportChart(const QString& chart, const QString& path, QString* error = nullptr) const;
  bool exportPairsCsv(const QString& path, QString* error = nullptr) const;
  bool saveDetailPng(const QString& path, QString* error = nullptr) const;

 signals:
  void geometryLoaded();
  void loadFailed(const QString& message);
  // The detail view of `caption` shows all its images, `elapsed_ms` after it was selected.
  void detailImagesShown(qint64 caption, qint64 elapsed_ms);
  void runsRefreshed();  // refreshRuns has brought the stored runs

 private:
  void buildUi();
  void startLoad();
  void applyResult(const CaptionLoadOutcome& result);
  QString choicesKey() const;  // what the benchmark, split and encoder choices name
  void showCaption(qint64 caption);
  void selectRow(qint64 caption);
  void updateHistoryButtons();
  void setStatus(const QString& text, bool error = false);

  QString database_;
  QString cache_dir_;
  ThumbnailCache* thumbs_ = nullptr;

  CaptionSourceBar* source_bar_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QLabel* status_ = nullptr;
  QTabWidget* pages_ = nullptr;
  std::function<hnclip::TrainConfig()> form_config_source_;  // the Train form, read on activation
  CaptionOverviewCharts* charts_ = nullptr;
  QLineEdit* search_ = nullptr;
  QTableView* table_ = nullptr;
  CaptionListModel* model_ = nullptr;
  QSortFilterProxyModel* proxy_ = nullptr;
  CaptionDetailView* detail_ = nullptr;
  QToolButton* back_ = nullptr;
  QToolButton* forward_ = nullptr;
  QTimer* poll_ = nullptr;

  std::shared_ptr<const CaptionViewData> data_;
  QString loaded_key_;                       // what data_ shows (source + overlay)
  CaptionGeometryLoader* loader_ = nullptr;  // the geometry load, one at a time
  bool reload_pending_ = false;              // choices changed while loading
  CaptionHistory history_;
  qint64 pending_caption_ = -1;  // asked for before the geometry arrived
  qint64 shown_caption_ = -1;
  bool syncing_selection_ = false;
};

}  // namespace hnclip::gui

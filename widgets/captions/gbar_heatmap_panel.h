#pragma once
// GbarHeatmapPanel (Captions tab, paper Fig. A5): a stored training batch's caption-similarity
// matrix Ḡ as a colour map — diagonal masked, a fixed colour range so that heatmaps of different
// batches, epochs and runs can be compared by eye, a colour scale, the largest off-diagonal entry
// outlined and named in the title. Hovering a cell shows both captions and their cosine; clicking
// it shows the pair side by side with their images. Epoch and batch controls step through the
// run's stored snapshots to watch the matrix change during training.
// Everything is read from the RunStore (and the run's training split for caption texts) on a
// worker thread; the GUI thread only draws.

#include <QFutureWatcher>
#include <QList>
#include <QPair>
#include <QString>
#include <QWidget>

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "widgets/captions/gbar_snapshot_set.h"
#include "widgets/common/workbench_tab.h"

class QComboBox;
class QCPColorMap;
class QCPColorScale;
class QCPItemRect;
class QCPTextElement;
class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QMouseEvent;
class QSlider;
class QToolButton;

namespace hnclip::gui {

class GbarPairView;

class ThumbnailCache;

class GbarHeatmapPanel : public QWidget, public WorkbenchTab {
  Q_OBJECT

 public:
  GbarHeatmapPanel(ThumbnailCache* thumbnails, QWidget* parent = nullptr);
  ~GbarHeatmapPanel() override;

  // Where runs are read from; reloads the run list (on a worker).
  void setSources(const QString& database, const QString& cache_dir);
  void refreshRuns();
  // WorkbenchTab, as a page of the Captions tab: activation rereads the run list; export saves
  // the heatmap as PNG, SVG or PDF; nothing is persisted.
  void activated() override;
  QString exportInteractive() override;
  void saveState(QSettings&) const override {}
  void restoreState(QSettings&) override {}
  // Selects run `run_id` and loads its snapshots (on a worker); `loaded` follows.
  void showRun(int64_t run_id);
  // The run dock's selection (MainWindow connects it): shows the first selected run — at once
  // when the page is on screen, else when it is next activated.
  void followRunSelection(const QList<int64_t>& ids);
  int64_t runId() const;
  bool isLoading() const { return loading_; }
  const GbarSnapshotSet* snapshotSet() const { return set_.get(); }

  // Shows one stored snapshot; false if the run has none for (epoch, batch). A selected pair
  // stays selected when the snapshot holds both its captions (the fixed batches do).
  bool setSnapshot(int epoch, int batch);
  int epoch() const { return epoch_; }
  int batch() const { return batch_; }
  const GbarSnapshotRow* currentSnapshot() const;

  // The fixed colour range (default 0 to 1); kept when the snapshot or run changes.
  void setColorRange(double lower, double upper);
  QPair<double, double> colorRange() const;

  // The cell under a pixel of the plot widget, as hover and click see it.
  std::optional<GbarCell> cellAtPixel(const QPoint& pixel) const;
  // Shows the pair of cell (row, col) side by side; false outside the matrix or on the diagonal.
  bool selectCell(int row, int col);
  std::optional<GbarCell> selectedCell() const { return selected_; }
  // A pair is selected and both its images (or their placeholders) are painted; true as well when
  // the run's captions could not be read (there are no images to wait for).
  bool pairImagesShown() const;
  QString hoverText(const GbarCell& cell) const;  // the tooltip of a cell

  QCustomPlot* plot() const { return plot_; }
  GbarPairView* pairView() const { return pair_; }
  // PNG/SVG/PDF by extension; false with a message naming the path on failure.
  bool exportChart(const QString& path, QString* error = nullptr);

 signals:
  void runsListed();
  void loaded(int64_t run_id);  // also after a failed load (see statusText)
  void snapshotShown(int epoch, int batch);
  void pairSelected(int64_t caption_a, int64_t caption_b);

 public:
  QString statusText() const;

 private:
  struct RunsResult;
  struct LoadResult;
  void onRunsListed();
  void onLoaded();
  void onRunChosen(int index);
  void onEpochSlider(int index);
  void onBatchChosen(int index);
  void stepEpoch(int delta);
  void draw();
  void showPair();
  void onMouseMove(QMouseEvent* event);
  void onMousePress(QMouseEvent* event);
  void setStatus(const QString& text, bool error = false);

  ThumbnailCache* thumbnails_;
  QString database_, cache_dir_;
  QComboBox* run_combo_ = nullptr;
  QToolButton* prev_epoch_ = nullptr;
  QToolButton* next_epoch_ = nullptr;
  QSlider* epoch_slider_ = nullptr;
  QLabel* epoch_label_ = nullptr;
  QComboBox* batch_combo_ = nullptr;
  QDoubleSpinBox* range_lo_ = nullptr;
  QDoubleSpinBox* range_hi_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  QCPColorMap* map_ = nullptr;
  QCPColorScale* scale_ = nullptr;
  QCPTextElement* title_ = nullptr;
  QCPItemRect* max_mark_ = nullptr;
  QCPItemRect* max_mirror_ = nullptr;
  QCPItemRect* selected_mark_ = nullptr;
  QLabel* status_ = nullptr;
  GbarPairView* pair_ = nullptr;

  QFutureWatcher<std::shared_ptr<RunsResult>>* runs_watcher_ = nullptr;
  QFutureWatcher<std::shared_ptr<LoadResult>>* set_watcher_ = nullptr;
  std::shared_ptr<GbarSnapshotSet> set_;
  QString load_error_;
  int64_t wanted_run_ = 0;  // the run asked for (loads of others are dropped)
  int64_t dock_run_ = 0;    // selected in the run dock while the page was hidden (0: none)
  bool loading_ = false;
  int epoch_ = -1, batch_ = -1;
  std::optional<GbarCell> selected_;                        // in the snapshot shown
  std::optional<std::pair<int64_t, int64_t>> wanted_pair_;  // caption ids the user selected
  bool filling_ = false;  // programmatic control updates: ignore their signals
};

}  // namespace hnclip::gui

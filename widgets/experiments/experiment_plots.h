#pragma once
// ExperimentPlots: the Experiments tab's charts of one experiment (QCustomPlot), on pages —
// "γ sweep" (mean R@1 against γ with std error bars, the other controls as bands mean ± std),
// "Sample efficiency" (mean R@1 against the data fraction per method and control, the strongest
// control's level at the largest fraction dotted) and "Hyper-parameters" (any config key against
// any metric, one point per run; clicking a point selects its run). A direction choice applies
// to the first two. The numbers come from experiment_plot_data.h; this class only draws.
// GUI thread only.

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>

class QComboBox;
class QCustomPlot;
class QTabWidget;

namespace hnclip::gui {

struct ExperimentSnapshot;

class ExperimentPlots : public QWidget {
  Q_OBJECT
 public:
  explicit ExperimentPlots(QWidget* parent = nullptr);

  // A snapshot of another experiment than before opens the page its axes ask for (sample
  // efficiency for an axis over data_fraction, else the γ sweep) unless the hyper-parameter page
  // is shown.
  void setSnapshot(std::shared_ptr<const ExperimentSnapshot> snapshot);

  // Page names: "gamma", "fractions", "hparams".
  static QStringList pageNames();
  QString currentPage() const;
  bool showPage(const QString& name);
  QCustomPlot* plot(const QString& page) const;
  // Writes a page's chart as PNG, SVG or PDF (by the extension).
  bool exportPlot(const QString& page, const QString& path, QString* error) const;
  // Asks for a file and format, then exports the current page (a status line, "" if none).
  QString exportInteractive();

  int direction() const;  // 0 text→image, 1 image→text
  void setDirection(int direction);
  QString hparamKey() const;
  void setHparamKey(const QString& key);
  int hparamMetric() const;
  void setHparamMetric(int index);

 signals:
  void runsClicked(QList<int64_t> run_ids);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void redraw();
  void drawGammaSweep();
  void drawSampleEfficiency();
  void drawHparams();
  void fillHparamKeys();
  void styleAll();
  QString pageTitle(const QString& page) const;

  std::shared_ptr<const ExperimentSnapshot> snapshot_;
  QTabWidget* pages_ = nullptr;
  QComboBox* direction_ = nullptr;
  QComboBox* hparam_key_ = nullptr;
  QComboBox* hparam_metric_ = nullptr;
  QCustomPlot* gamma_ = nullptr;
  QCustomPlot* fractions_ = nullptr;
  QCustomPlot* hparams_ = nullptr;
  // Per graph of the hyper-parameter view: (metric value, run) of its points.
  std::vector<std::vector<std::pair<double, int64_t>>> hparam_graph_runs_;
  QString wanted_hparam_key_;  // restored before the first snapshot brings the keys
};

}  // namespace hnclip::gui

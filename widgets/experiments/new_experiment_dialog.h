#pragma once
// NewExperimentDialog: "New experiment…" — a preset or axes of one's own (a config key and its
// comma-separated values per row) over a base configuration (the presets' recipe or the Train
// tab's form, with changes as JSON), seeds, the controls (on by default; off says what is lost,
// as --no-controls does), runs at a time and the epoch-selection rule. Before anything starts it
// shows the number of runs, how many finished runs already fill, and the time estimated from the
// throughput measured on finished runs in the store (or "no estimate"); what the core refuses
// (an unknown key, a refused value, more than 200 runs without ticking the confirmation) is shown
// with the core's message and disables Start. The preview runs on a worker (it reads the store).
// GUI thread only.

#include <functional>
#include <optional>

#include <QDialog>
#include <QFutureWatcher>

#include "train/train_config.h"
#include "widgets/experiments/experiment_preview.h"
#include "widgets/experiments/experiment_spec_for_qt.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTimer;

namespace hnclip::gui {

class NewExperimentDialog : public QDialog {
  Q_OBJECT
 public:
  // `form_config`: the Train tab's configuration, offered as a base (null: not offered).
  NewExperimentDialog(QString db_path, std::function<hnclip::TrainConfig()> form_config,
                      QWidget* parent = nullptr);
  ~NewExperimentDialog() override;

  // The experiment as the fields describe it; ConfigError with the core's message when they
  // cannot (a value list that does not parse, base changes that are not a JSON object).
  hnclip::ExperimentSpec spec() const;
  bool confirmed() const;
  // The last preview (valid once previewReady has been emitted).
  const ExperimentPreview& preview() const { return preview_; }
  QString problem() const;  // why Start is disabled; "" when it is enabled

  // For tests and scripts: choose a preset ("" = custom axes) and set fields.
  void choosePreset(const QString& preset);
  void setBaseChanges(const QString& json);
  void setSeeds(const QString& seeds);
  void setAxis(int row, const QString& key, const QString& values);
  void setControls(bool on);

 signals:
  void previewReady();

 private:
  void buildLayout();
  void fillAxesFromPreset();
  void addAxisRow(const QString& key, const QString& values);
  void schedulePreview();
  void startPreview();
  void showPreview();

  QString db_path_;
  std::function<hnclip::TrainConfig()> form_config_;
  QLineEdit* name_ = nullptr;
  QComboBox* preset_ = nullptr;
  QComboBox* base_ = nullptr;
  QLineEdit* base_changes_ = nullptr;
  QTableWidget* axes_ = nullptr;
  QLineEdit* seeds_ = nullptr;
  QCheckBox* controls_ = nullptr;
  QLineEdit* control_scales_ = nullptr;
  QLabel* controls_caveat_ = nullptr;
  QSpinBox* parallel_ = nullptr;
  QComboBox* selection_ = nullptr;
  QCheckBox* confirm_ = nullptr;
  QLabel* summary_ = nullptr;
  QLabel* error_ = nullptr;
  QPushButton* start_ = nullptr;
  QTimer* debounce_ = nullptr;
  QFutureWatcher<ExperimentPreview>* watcher_ = nullptr;
  bool preview_pending_ = false;  // the fields changed while a preview ran
  bool preview_current_ = false;  // preview_ describes the fields as they are
  QString spec_error_;            // the fields did not make a spec
  ExperimentPreview preview_;
};

}  // namespace hnclip::gui

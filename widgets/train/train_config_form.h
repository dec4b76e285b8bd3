#pragma once
// TrainConfigForm: the Train tab's run configuration — benchmark, starting model, loss (γ, Ḡ mode,
// token weight), optimisation, probes, device and name, and under "Advanced" every other key
// (splits, context length, weight decay, warm-up, gradient clipping, Ḡ snapshots, threads,
// loader workers, precision, start evaluation) — edited as widgets and read back as one
// hnclip::TrainConfig. config() starts from the config last given to setConfig(), so a key the
// form has no widget for is kept as given, never reset to its default. Every edit re-validates with
// the core's own TrainConfig::validate() plus the form's checks (files and folders that must
// exist); the first problem is shown under the field it belongs to, and validityChanged() lets the
// owner disable Start. Threading: GUI thread only. Reads no database and no files beyond existence
// checks.

#include <map>
#include <string>
#include <vector>

#include <QWidget>

#include "train/train_config.h"
#include "widgets/train/given_values.h"
#include "widgets/train/seed_edit.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;
class QSlider;
class QSpinBox;

namespace hnclip::gui {
class TrainAdvancedFields;
}

namespace hnclip::gui {

class TrainConfigForm : public QWidget {
  Q_OBJECT
 public:
  // `devices`: what this machine can train on ("cpu", "cuda:0", ...); CUDA entries missing from it
  // are shown greyed out.
  explicit TrainConfigForm(const std::vector<std::string>& devices, QWidget* parent = nullptr);

  hnclip::TrainConfig config() const;
  void setConfig(const hnclip::TrainConfig& config);
  // Empty when the current values can be submitted, else the reason (also shown in place).
  QString problem() const { return problem_; }
  bool isValid() const { return problem_.isEmpty(); }
  // The label under the field that `flag` (e.g. "--lr") belongs to; for tests.
  QString fieldMessage(const QString& flag) const;
  // The Advanced section: shown or folded (its title says how many of its keys differ from
  // TrainConfig's defaults, so a folded section hides no change).
  void setAdvancedVisible(bool visible);
  bool advancedVisible() const;
  QString advancedTitle() const;
  // A summary line for the chosen benchmark (Table-A1 style) once the owner knows it.
  void setBenchmarkSummary(const QString& text);

  // Direct access for tests and for the keyboard-driven end-to-end check.
  QDoubleSpinBox* gammaSpin() const { return gamma_; }
  QSlider* gammaSlider() const { return gamma_slider_; }
  QLineEdit* lrEdit() const { return lr_; }
  SeedEdit* seedEdit() const { return seed_; }
  SeedEdit* dataSeedEdit() const { return data_seed_; }
  QLineEdit* initPathEdit() const { return init_path_; }
  QComboBox* modelCombo() const { return model_; }
  QComboBox* deviceCombo() const { return device_; }
  QComboBox* benchmarkCombo() const { return benchmark_; }
  QComboBox* peftCombo() const { return peft_; }
  QComboBox* activationCombo() const { return activation_; }
  TrainAdvancedFields* advancedFields() const { return advanced_; }
  QLineEdit* vocabEdit() const { return vocab_; }
  QLineEdit* dataRootEdit() const { return data_root_; }
  QRadioButton* gbarFrozenButton() const { return gbar_frozen_; }
  QCheckBox* longClipCheck() const { return long_clip_; }

 signals:
  void validityChanged(bool valid);
  void changed();
  // "Same as run…" was clicked: the owner offers the stored runs and calls setConfig().
  void sameAsRunRequested();

 private:
  void buildUi();
  void updateAdvancedTitle();
  void revalidate();
  void updateEnabledFields();
  QLabel* messageLabel(const QString& flag);
  std::vector<std::string> devices_;

  QComboBox* benchmark_ = nullptr;
  QComboBox* benchmark_size_ = nullptr;
  SeedEdit* data_seed_ = nullptr;
  QLineEdit* data_root_ = nullptr;
  QPushButton* data_root_browse_ = nullptr;
  QLabel* benchmark_summary_ = nullptr;
  QComboBox* model_ = nullptr;
  QLineEdit* init_path_ = nullptr;
  QPushButton* init_browse_ = nullptr;
  QLineEdit* vocab_ = nullptr;  // CLIP BPE vocabulary, for OpenAI CLIP / Long-CLIP checkpoints
  QPushButton* vocab_browse_ = nullptr;
  QCheckBox* long_clip_ = nullptr;
  QComboBox* activation_ = nullptr;  // --activation: "" (as the file records it), quick_gelu, gelu
  QComboBox* peft_ = nullptr;
  QSpinBox* peft_rank_ = nullptr;
  QDoubleSpinBox* peft_alpha_ = nullptr;
  QComboBox* peft_towers_ = nullptr;
  QDoubleSpinBox* gamma_ = nullptr;
  QSlider* gamma_slider_ = nullptr;
  QRadioButton* gbar_recomputed_ = nullptr;
  QRadioButton* gbar_frozen_ = nullptr;
  QDoubleSpinBox* token_weight_ = nullptr;
  QDoubleSpinBox* logit_scale_ = nullptr;
  QCheckBox* fixed_scale_ = nullptr;
  QSpinBox* epochs_ = nullptr;
  QSpinBox* batch_ = nullptr;
  QLineEdit* lr_ = nullptr;
  QDoubleSpinBox* data_fraction_ = nullptr;
  SeedEdit* seed_ = nullptr;
  QSpinBox* probe_every_ = nullptr;
  QComboBox* device_ = nullptr;
  QLineEdit* name_ = nullptr;
  // Advanced.
  QPushButton* advanced_toggle_ = nullptr;
  TrainAdvancedFields* advanced_ = nullptr;
  GivenValues given_;         // exact values behind rounded editors
  hnclip::TrainConfig base_;             // the last setConfig(): what config() starts from
  std::map<QString, QLabel*> messages_;  // flag -> its in-place message label
  QString problem_;
  bool updating_ = false;  // setConfig in progress: one revalidation at the end
};

}  // namespace hnclip::gui

#pragma once
// TrainAdvancedFields: the Train form's "Advanced" keys — splits (train, test, validation), the
// batch sampler, the fine-tuning framework (with whether its global term carries the HN margins,
// and its own settings), the checks of a data set's image files (pixel limit, paths outside the root,
// skipping undecodable images), context length, weight decay, warm-up, gradient clipping, Ḡ
// snapshots, threads, loader workers, precision, data-parallel processes, start evaluation — so every TrainConfig key the
// CLI takes can be seen and edited in the window. write() shows a config's values, read() puts
// them back; changedFromDefaults() names the keys that differ from TrainConfig's defaults, for the
// folded section's title. GUI thread only.

#include <functional>

#include <QGroupBox>
#include <QStringList>

#include "train/train_config.h"
#include "widgets/train/given_values.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace hnclip::gui {

class TrainAdvancedFields : public QGroupBox {
  Q_OBJECT
 public:
  // `message_label(flag)` makes the in-place problem label of a flag (owned by the form).
  TrainAdvancedFields(const std::function<QLabel*(const QString& flag)>& message_label,
                      QWidget* parent = nullptr);

  void write(const hnclip::TrainConfig& config);
  void read(hnclip::TrainConfig& config) const;
  QStringList changedFromDefaults() const;
  // Context length sizes the word tokenizer of a run from scratch only; a checkpoint start brings
  // its own tokenizer, so the field is greyed out there (its value kept, like every greyed field).
  void setWordTokenizerBuilt(bool built);

  QComboBox* frameworkCombo() const { return framework_; }
  QSpinBox* threadsSpin() const { return threads_; }
  QSpinBox* contextLengthSpin() const { return context_length_; }
  QSpinBox* processesSpin() const { return processes_; }
  QDoubleSpinBox* gradClipSpin() const { return grad_clip_; }
  QCheckBox* skipBadImagesCheck() const { return skip_bad_images_; }

 signals:
  void edited();

 private:
  // Another framework's settings (greyed out) at their defaults in `c`, whose framework is read.
  static void launch_other_frameworks_settings_at_defaults(hnclip::TrainConfig& c);

  QLineEdit* train_split_ = nullptr;
  QLineEdit* test_split_ = nullptr;
  QLineEdit* val_split_ = nullptr;
  QComboBox* batch_sampler_ = nullptr;
  QComboBox* framework_ = nullptr;
  QCheckBox* hn_ = nullptr;
  QSpinBox* longclip_pca_ = nullptr;
  QDoubleSpinBox* longclip_smoothing_ = nullptr;
  QDoubleSpinBox* debias_keep_ = nullptr;
  QSpinBox* debias_pad_ = nullptr;
  QDoubleSpinBox* finelip_margin_ = nullptr;
  QCheckBox* finelip_hardest_ = nullptr;
  QDoubleSpinBox* finelip_lr_ = nullptr;
  QLineEdit* goal_segments_ = nullptr;
  QDoubleSpinBox* goal_crop_weight_ = nullptr;
  QComboBox* train_towers_ = nullptr;
  QLineEdit* structxlip_words_ = nullptr;
  QDoubleSpinBox* structxlip_structure_weight_ = nullptr;
  QDoubleSpinBox* structxlip_consistency_weight_ = nullptr;
  QDoubleSpinBox* structxlip_local_weight_ = nullptr;
  QSpinBox* structxlip_chunk_words_ = nullptr;
  QSpinBox* max_image_megapixels_ = nullptr;  // whole megapixels; 0 = the default limit
  QCheckBox* allow_outside_root_ = nullptr;
  QCheckBox* skip_bad_images_ = nullptr;
  QSpinBox* context_length_ = nullptr;
  QDoubleSpinBox* weight_decay_ = nullptr;
  QDoubleSpinBox* warmup_ = nullptr;
  QDoubleSpinBox* grad_clip_ = nullptr;
  QSpinBox* gbar_snapshots_ = nullptr;
  QSpinBox* threads_ = nullptr;
  QSpinBox* loader_workers_ = nullptr;
  QComboBox* precision_ = nullptr;
  QSpinBox* processes_ = nullptr;  // world_size: data-parallel processes on this machine
  QComboBox* dist_eval_ = nullptr;  // dist_eval: sharded | rank0 (item data)
  // dist_backend is what a stored run used, not a choice made here: carried through unchanged so
  // that "same as run" keeps every key (a new run records what it used again).
  std::string given_backend_;
  QCheckBox* eval_at_start_ = nullptr;
  GivenValues given_;
  // --max-image-pixels is exact; the spin box shows megapixels. A given value that is not a whole
  // number of megapixels reads back unchanged unless the spin box is edited.
  int64_t given_max_pixels_ = 0;
  int shown_megapixels_ = 0;
};

}  // namespace hnclip::gui

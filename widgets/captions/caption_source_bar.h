#pragma once
// CaptionSourceBar: the Captions tab's choices of what is shown — benchmark, split, text encoder
// and an overlaid second encoder — and the line saying whose benchmark it is. The benchmark
// follows the encoder: choosing a run's checkpoint (in the box or through setEncoder) shows the
// benchmark that run trained on, with the split it was evaluated on; the pretrained checkpoint
// and checkpoint files keep the benchmark chosen (at first the Train form's). Whenever the
// benchmark shown is not the Train form's, a visible line says which it is and why.
// Threading: GUI thread.

#include <cstdint>
#include <vector>

#include <QColor>
#include <QString>
#include <QWidget>

#include "train/train_config.h"
#include "widgets/captions/caption_view_data.h"

class QComboBox;
class QLabel;

namespace hnclip::gui {

// The colour an encoder is drawn in: a run's own (widgets/common/run_colors.h) for run:ID, so the
// overview's curves match the run's everywhere else; `otherwise` for any other encoder.
QColor caption_encoder_color(const QString& encoder, const QColor& otherwise);

class CaptionSourceBar : public QWidget {
  Q_OBJECT

 public:
  explicit CaptionSourceBar(QString cache_dir, QWidget* parent = nullptr);

  // The Train form's configuration: the benchmark offered first ("as in the Train form").
  void setFormConfig(const hnclip::TrainConfig& config);
  // The stored runs: their benchmarks and checkpoints become choices.
  void setRuns(std::vector<CaptionRunChoice> runs);
  // Text encoder as run:ID | ckpt:PATH | init:pretrained (added to the choices if new); "" =
  // none. A run:ID encoder brings its run's benchmark (once the runs are known).
  void setEncoder(const QString& encoder);
  void setOverlayEncoder(const QString& encoder);
  QString encoder() const;
  QString overlayEncoder() const;
  QString encoderLabel() const;  // as the box shows them
  QString overlayLabel() const;
  // The captions chosen, for people: "synthetic default (seed 1) / test" (not the store's key).
  QString dataLabel() const;
  int64_t benchmarkRun() const;  // the run whose benchmark is shown; -1: the Train form's

  CaptionSource source(const QString& encoder) const;
  QString choicesKey() const;  // what the benchmark, split and encoder choices name
  // "" when the Train form's benchmark is shown, else the line saying whose it is.
  QString benchmarkNote() const;

 signals:
  void changed();  // the user changed a choice

 private:
  void fillEncoderChoices();
  void chooseCheckpointFile(QComboBox* combo);
  void followEncoder();  // the benchmark of a run:ID encoder
  void showBenchmarkOfRun(int64_t run);
  void updateNote();

  QString cache_dir_;
  hnclip::TrainConfig form_config_;
  std::vector<CaptionRunChoice> runs_;
  QComboBox* benchmark_ = nullptr;
  QComboBox* split_ = nullptr;
  QComboBox* encoder_ = nullptr;
  QComboBox* overlay_ = nullptr;
  QLabel* note_ = nullptr;
  // How the benchmark shown was chosen, for the note: by the encoder's run, or in its own box.
  bool benchmark_from_encoder_ = false;
  bool follow_pending_ = false;  // a run:ID encoder whose run setRuns has not brought yet
};

}  // namespace hnclip::gui

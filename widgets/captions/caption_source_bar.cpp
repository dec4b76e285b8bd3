#include "widgets/captions/caption_source_bar.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "job/run_benchmark_spec.h"
#include "widgets/common/narrow_combo.h"
#include "widgets/common/run_colors.h"
#include "widgets/common/run_label.h"

namespace hnclip::gui {
namespace {

const QString kPretrained = QStringLiteral("init:pretrained");
const QString kChooseFile = QStringLiteral("?file");  // the "Checkpoint file…" entry
const QString kRunPrefix = QStringLiteral("run:");
constexpr qint64 kFormBenchmark = -1;  // the benchmark box's entry for the Train form's

QString spec_text(const hnclip::BenchmarkSpec& spec) {
  if (spec.name == "synthetic")
    return QStringLiteral("synthetic %1 (seed %2)")
        .arg(QString::fromStdString(spec.size))
        .arg(spec.seed);
  return QStringLiteral("%1 %2").arg(QString::fromStdString(spec.name),
                                     QFileInfo(QString::fromStdString(spec.root)).fileName());
}

bool same_benchmark(const hnclip::BenchmarkSpec& a, const hnclip::BenchmarkSpec& b) {
  return a.name == b.name && a.size == b.size && a.seed == b.seed && a.root == b.root;
}

// The run of a run:ID encoder, else -1.
int64_t encoder_run(const QString& encoder) {
  if (!encoder.startsWith(kRunPrefix)) return -1;
  bool ok = false;
  const qint64 id = encoder.mid(kRunPrefix.size()).toLongLong(&ok);
  return ok ? id : -1;
}

}  // namespace

QColor caption_encoder_color(const QString& encoder, const QColor& otherwise) {
  const int64_t run = encoder_run(encoder);
  return run >= 0 ? run_color(run) : otherwise;
}

CaptionSourceBar::CaptionSourceBar(QString cache_dir, QWidget* parent)
    : QWidget(parent), cache_dir_(std::move(cache_dir)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* row = new QHBoxLayout;
  benchmark_ = new NarrowComboBox(16, this);
  benchmark_->setObjectName(QStringLiteral("captionBenchmark"));
  benchmark_->setToolTip(
      tr("Whose benchmark split is shown. Choosing a run's checkpoint as the encoder shows the "
         "benchmark that run trained on."));
  split_ = new QComboBox(this);
  split_->setObjectName(QStringLiteral("captionSplit"));
  split_->addItems({QStringLiteral("test"), QStringLiteral("val"), QStringLiteral("train")});
  encoder_ = new NarrowComboBox(14, this);
  encoder_->setObjectName(QStringLiteral("captionEncoder"));
  overlay_ = new NarrowComboBox(14, this);
  overlay_->setObjectName(QStringLiteral("captionOverlay"));
  encoder_->setToolTip(tr("Text encoder whose caption cosines are shown"));
  overlay_->setToolTip(tr(
      "A second encoder drawn over the first in the overview (e.g. before vs after fine-tuning)"));
  // Their items are benchmarks, runs and checkpoint paths: they must not size the window.
  row->addWidget(new QLabel(tr("Benchmark:"), this));
  row->addWidget(benchmark_, 1);
  row->addWidget(new QLabel(tr("Split:"), this));
  row->addWidget(split_);
  row->addWidget(new QLabel(tr("Encoder:"), this));
  row->addWidget(encoder_, 1);
  row->addWidget(new QLabel(tr("Overlay:"), this));
  row->addWidget(overlay_, 1);
  layout->addLayout(row);
  note_ = new QLabel(this);
  note_->setObjectName(QStringLiteral("captionBenchmarkNote"));
  note_->setWordWrap(true);
  note_->setVisible(false);
  layout->addWidget(note_);

  benchmark_->addItem(QString(), kFormBenchmark);
  fillEncoderChoices();
  connect(benchmark_, qOverload<int>(&QComboBox::activated), this, [this] {
    benchmark_from_encoder_ = follow_pending_ = false;
    showBenchmarkOfRun(benchmarkRun());
    emit changed();
  });
  connect(split_, qOverload<int>(&QComboBox::activated), this, &CaptionSourceBar::changed);
  connect(encoder_, qOverload<int>(&QComboBox::activated), this, [this] {
    if (encoder_->currentData().toString() == kChooseFile) chooseCheckpointFile(encoder_);
    followEncoder();
    emit changed();
  });
  connect(overlay_, qOverload<int>(&QComboBox::activated), this, [this] {
    if (overlay_->currentData().toString() == kChooseFile) chooseCheckpointFile(overlay_);
    emit changed();
  });
  setFormConfig(form_config_);
}

void CaptionSourceBar::fillEncoderChoices() {
  for (QComboBox* combo : {encoder_, overlay_}) {
    const QString current = combo->currentData().toString();
    QSignalBlocker block(combo);
    combo->clear();
    if (combo == overlay_) combo->addItem(tr("(none)"), QString());
    combo->addItem(tr("Pretrained starting checkpoint"), kPretrained);
    for (const auto& run : runs_) {
      if (!run.has_checkpoint) continue;
      combo->addItem(run_choice_label(run.id, run.name.toStdString()),
                     kRunPrefix + QString::number(run.id));
    }
    if (!current.isEmpty() && current != kPretrained && current != kChooseFile &&
        combo->findData(current) < 0)
      combo->addItem(current.startsWith(QLatin1String("ckpt:")) ? current.mid(5) : current,
                     current);
    combo->addItem(tr("Checkpoint file…"), kChooseFile);
    const int at = combo->findData(current);
    combo->setCurrentIndex(at >= 0 ? at : 0);
  }
}

void CaptionSourceBar::chooseCheckpointFile(QComboBox* combo) {
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Text encoder checkpoint"), QString(),
                                   tr("Checkpoints (*.pt *.pth *.bin);;All files (*)"));
  if (path.isEmpty()) {
    combo->setCurrentIndex(0);
    return;
  }
  const QString value = QStringLiteral("ckpt:") + path;
  if (combo->findData(value) < 0) combo->insertItem(combo->count() - 1, path, value);
  combo->setCurrentIndex(combo->findData(value));
}

void CaptionSourceBar::setEncoder(const QString& encoder) {
  if (encoder.isEmpty()) return;
  if (encoder_->findData(encoder) < 0)
    encoder_->insertItem(encoder_->count() - 1, encoder, encoder);
  encoder_->setCurrentIndex(encoder_->findData(encoder));
  followEncoder();
}

void CaptionSourceBar::setOverlayEncoder(const QString& encoder) {
  if (overlay_->findData(encoder) < 0)
    overlay_->insertItem(overlay_->count() - 1, encoder, encoder);
  overlay_->setCurrentIndex(overlay_->findData(encoder));
}

QString CaptionSourceBar::encoder() const { return encoder_->currentData().toString(); }
QString CaptionSourceBar::overlayEncoder() const { return overlay_->currentData().toString(); }
QString CaptionSourceBar::encoderLabel() const { return encoder_->currentText(); }
QString CaptionSourceBar::overlayLabel() const { return overlay_->currentText(); }

int64_t CaptionSourceBar::benchmarkRun() const {
  return benchmark_->currentIndex() < 0 ? kFormBenchmark : benchmark_->currentData().toLongLong();
}

void CaptionSourceBar::setFormConfig(const hnclip::TrainConfig& config) {
  form_config_ = config;
  const auto spec = hnclip::run_benchmark_spec(config, cache_dir_.toStdString());
  benchmark_->setItemText(0, tr("As in the Train form: %1").arg(spec_text(spec)));
  if (benchmarkRun() == kFormBenchmark) showBenchmarkOfRun(kFormBenchmark);
  updateNote();
}

void CaptionSourceBar::setRuns(std::vector<CaptionRunChoice> runs) {
  runs_ = std::move(runs);
  const qint64 current = benchmarkRun();
  {
    QSignalBlocker block(benchmark_);
    while (benchmark_->count() > 1) benchmark_->removeItem(1);
    for (const auto& run : runs_) {
      benchmark_->addItem(
          tr("As run %1 (%2): %3").arg(run.id).arg(run.name, spec_text(run.benchmark)),
          qint64(run.id));
    }
    const int at = benchmark_->findData(current);
    benchmark_->setCurrentIndex(at >= 0 ? at : 0);
  }
  fillEncoderChoices();
  // An encoder set before the runs were known brings its run's benchmark now.
  if (follow_pending_) followEncoder();
  updateNote();
}

void CaptionSourceBar::followEncoder() {
  const int64_t run = encoder_run(encoder());
  follow_pending_ = false;
  if (run < 0) {
    updateNote();
    return;  // the pretrained checkpoint or a file: the benchmark chosen stays
  }
  benchmark_from_encoder_ = true;
  const int at = benchmark_->findData(qint64(run));
  follow_pending_ = at < 0;  // the runs are not known yet: setRuns follows
  if (follow_pending_) {
    updateNote();
    return;
  }
  benchmark_->setCurrentIndex(at);
  showBenchmarkOfRun(run);
}

// The split that goes with the benchmark shown: a run's is the one it was evaluated on.
void CaptionSourceBar::showBenchmarkOfRun(int64_t run) {
  QString split = QString::fromStdString(form_config_.test_split);
  for (const auto& r : runs_)
    if (r.id == run) split = QString::fromStdString(r.test_split);
  if (split_->findText(split) < 0) split_->addItem(split);
  split_->setCurrentIndex(split_->findText(split));
  updateNote();
}

CaptionSource CaptionSourceBar::source(const QString& encoder) const {
  CaptionSource source;
  source.benchmark = hnclip::run_benchmark_spec(form_config_, cache_dir_.toStdString());
  const qint64 run = benchmarkRun();
  for (const auto& r : runs_)
    if (r.id == run) source.benchmark = r.benchmark;
  source.split = split_->currentText().toStdString();
  source.encoder = encoder.toStdString();
  return source;
}

QString CaptionSourceBar::dataLabel() const {
  const CaptionSource shown = source(encoder());
  return spec_text(shown.benchmark) + QStringLiteral(" / ") + QString::fromStdString(shown.split);
}

QString CaptionSourceBar::choicesKey() const {
  return QStringLiteral("%1|%2|%3|%4")
      .arg(benchmark_->currentText(), split_->currentText(), encoder(), overlayEncoder());
}

QString CaptionSourceBar::benchmarkNote() const {
  const int64_t run = benchmarkRun();
  if (run == kFormBenchmark) return {};
  const auto form = hnclip::run_benchmark_spec(form_config_, cache_dir_.toStdString());
  const CaptionRunChoice* shown = nullptr;
  for (const auto& r : runs_)
    if (r.id == run) shown = &r;
  if (!shown || same_benchmark(shown->benchmark, form)) return {};
  const QString why = benchmark_from_encoder_ && encoder_run(encoder()) == run
                          ? tr("the encoder is that run's checkpoint")
                          : tr("chosen in the Benchmark box");
  return tr("Showing run %1's benchmark, %2 (%3 split): %4. The Train form names %5.")
      .arg(run)
      .arg(spec_text(shown->benchmark), split_->currentText(), why, spec_text(form));
}

void CaptionSourceBar::updateNote() {
  const QString note = benchmarkNote();
  note_->setText(note);
  note_->setVisible(!note.isEmpty());
}

}  // namespace hnclip::gui

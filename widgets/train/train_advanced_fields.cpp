#include "widgets/train/train_advanced_fields.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <tuple>
#include <utility>

#include "data/image_file_check.h"

namespace hnclip::gui {

TrainAdvancedFields::TrainAdvancedFields(
    const std::function<QLabel*(const QString& flag)>& message_label, QWidget* parent)
    : QGroupBox(tr("Advanced"), parent) {
  auto* form = new QFormLayout(this);
  train_split_ = new QLineEdit(this);
  form->addRow(tr("Train split"), train_split_);
  test_split_ = new QLineEdit(this);
  form->addRow(tr("Test split"), test_split_);
  val_split_ = new QLineEdit(this);
  val_split_->setPlaceholderText(tr("none"));
  val_split_->setToolTip(
      tr("--val-split: evaluated like the test split after every epoch and stored under its own "
         "name, so an epoch can be selected without the test split (the built-in benchmark's: "
         "val). The run's best epoch stays chosen on test."));
  form->addRow(tr("Validation split"), val_split_);
  form->addRow(message_label(QStringLiteral("--val-split")));
  batch_sampler_ = new QComboBox(this);
  batch_sampler_->addItems({QStringLiteral("random"), QStringLiteral("families")});
  batch_sampler_->setToolTip(
      tr("--batch-sampler: random batches, or near-twin families kept together inside batches (the "
         "data set's groups, else clusters of each caption's nearest neighbours under the "
         "starting model) — the hard negatives the margins single out"));
  form->addRow(tr("Batches"), batch_sampler_);
  framework_ = new QComboBox(this);
  framework_->addItems(
      {QStringLiteral("plain"), QStringLiteral("longclip"), QStringLiteral("debias"),
       QStringLiteral("finelip"), QStringLiteral("goal"), QStringLiteral("structxlip")});
  framework_->setToolTip(
      tr("--framework: plain (the global image–caption term alone); longclip (Long-CLIP: also "
         "the short caption — the caption up to its first \". \" — against the batch-PCA image "
         "features, label smoothing, the logit scale restarted at 100 unless set); debias "
         "(DeBias-CLIP on Long-CLIP's code: instead of the short caption, an augmented one "
         "without the summary sentence, a random share of the others, padded to later token "
         "positions) — these two need data that can tokenize new captions (every built-in "
         "reader); finelip (FineLIP: aggregated patch and word tokens, a triplet hinge on their "
         "late-interaction similarity, the HN global term added when the margins are on); goal "
         "(GOAL: each image's segment — a crop box matched to one caption sentence — adds a crop "
         "↔ sentence CLIP term and pulls the image's box tokens and the caption's sentence "
         "tokens towards them; needs segments: the built-in benchmark's own, or a file below); "
         "structxlip (StructXLIP: the image's Canny edge map against the caption without its "
         "colour, material and texture words, the RGB and edge embeddings pulled together, and "
         "edge segments against caption chunks — the segments as for goal, or its local weight "
         "0)."));
  form->addRow(tr("Framework"), framework_);
  form->addRow(message_label(QStringLiteral("--framework")));
  train_towers_ = new QComboBox(this);
  train_towers_->addItems({QStringLiteral("both"), QStringLiteral("image"), QStringLiteral("text")});
  train_towers_->setToolTip(
      tr("--train-towers: the towers whose weights train in full fine-tuning, with any framework "
         "(every framework's published setting is both); the other tower is frozen, the logit "
         "scale trains unless fixed. With adapters, their towers are chosen beside them."));
  form->addRow(tr("Trained towers"), train_towers_);
  form->addRow(message_label(QStringLiteral("--train-towers")));
  hn_ = new QCheckBox(tr("HN margins in the framework's global term (γ, Ḡ)"), this);
  hn_->setToolTip(
      tr("--hn on: the framework's global InfoNCE term is the HN loss with the γ and Ḡ above; "
         "off: the framework's own term (then γ must be 0)"));
  form->addRow(QString(), hn_);
  form->addRow(message_label(QStringLiteral("--hn")));
  longclip_pca_ = new QSpinBox(this);
  longclip_pca_->setRange(1, 100000);
  longclip_pca_->setToolTip(tr("--longclip-pca: principal components kept of the batch's image "
                               "features for the short-caption branch (Long-CLIP: 32)"));
  form->addRow(tr("Long-CLIP PCA components"), longclip_pca_);
  longclip_smoothing_ = new QDoubleSpinBox(this);
  longclip_smoothing_->setRange(0.0, 0.999);
  longclip_smoothing_->setDecimals(3);
  longclip_smoothing_->setSingleStep(0.05);
  longclip_smoothing_->setToolTip(
      tr("--longclip-smoothing: label smoothing of Long-CLIP's and DeBias-CLIP's "
         "cross-entropies (Long-CLIP's code: 0.1)"));
  form->addRow(tr("Label smoothing (Long-CLIP, DeBias)"), longclip_smoothing_);
  form->addRow(message_label(QStringLiteral("--longclip-smoothing")));
  debias_keep_ = new QDoubleSpinBox(this);
  debias_keep_->setRange(0.01, 1.0);
  debias_keep_->setDecimals(2);
  debias_keep_->setSingleStep(0.1);
  debias_keep_->setToolTip(tr("--debias-keep: the share of the non-summary sentences DeBias-CLIP's "
                              "augmented caption keeps (a new random subset every step)"));
  form->addRow(tr("DeBias sentences kept"), debias_keep_);
  form->addRow(message_label(QStringLiteral("--debias-keep")));
  debias_pad_ = new QSpinBox(this);
  debias_pad_->setRange(-1, 1000);
  debias_pad_->setSpecialValueText(tr("match the full caption"));
  debias_pad_->setToolTip(tr("--debias-pad: padding tokens put before the augmented caption's "
                             "sentences; -1: as many as it lost, so it ends where the full "
                             "caption ends"));
  form->addRow(tr("DeBias padding tokens"), debias_pad_);
  form->addRow(message_label(QStringLiteral("--debias-pad")));
  finelip_margin_ = new QDoubleSpinBox(this);
  finelip_margin_->setRange(0.0, 10.0);
  finelip_margin_->setDecimals(3);
  finelip_margin_->setSingleStep(0.05);
  finelip_margin_->setToolTip(tr("--finelip-margin: the triplet hinge's margin (FineLIP: 0.2)"));
  form->addRow(tr("FineLIP margin"), finelip_margin_);
  form->addRow(message_label(QStringLiteral("--finelip-margin")));
  finelip_hardest_ = new QCheckBox(tr("FineLIP: hardest negative only"), this);
  finelip_hardest_->setToolTip(tr("--finelip-hardest: each query's largest violation only "
                                  "(VSE++'s max violation) instead of the sum over negatives"));
  form->addRow(QString(), finelip_hardest_);
  finelip_lr_ = new QDoubleSpinBox(this);
  finelip_lr_->setRange(1e-7, 1.0);
  finelip_lr_->setDecimals(7);
  finelip_lr_->setSingleStep(1e-5);
  finelip_lr_->setToolTip(tr("--finelip-lr: peak learning rate of FineLIP's two new "
                             "token-aggregation nets (on the encoders' schedule)"));
  form->addRow(tr("FineLIP aggregation lr"), finelip_lr_);
  form->addRow(message_label(QStringLiteral("--finelip-lr")));
  goal_segments_ = new QLineEdit(this);
  goal_segments_->setPlaceholderText(tr("the built-in benchmark's own"));
  goal_segments_->setToolTip(
      tr("--goal-segments: GOAL's segment file for a data set of your own (GOAL's training JSON: "
         "per image a \"segment\" list of crop box and caption sentence; README). Checked before "
         "the run is recorded."));
  form->addRow(tr("GOAL segments"), goal_segments_);
  form->addRow(message_label(QStringLiteral("--goal-segments")));
  goal_crop_weight_ = new QDoubleSpinBox(this);
  goal_crop_weight_->setRange(0.0, 100.0);
  goal_crop_weight_->setDecimals(3);
  goal_crop_weight_->setSingleStep(0.1);
  goal_crop_weight_->setToolTip(
      tr("--goal-crop-weight: weight of the crop-image ↔ sentence CLIP term (GOAL: 0.5)"));
  form->addRow(tr("GOAL crop weight"), goal_crop_weight_);
  form->addRow(message_label(QStringLiteral("--goal-crop-weight")));
  structxlip_words_ = new QLineEdit(this);
  structxlip_words_->setPlaceholderText(tr("the shipped structxlip_words.txt"));
  structxlip_words_->setToolTip(
      tr("--structxlip-words: the words and phrases StructXLIP's filtered captions drop (UTF-8, "
         "one per line, # comments). Checked before the run is recorded."));
  form->addRow(tr("StructXLIP word list"), structxlip_words_);
  form->addRow(message_label(QStringLiteral("--structxlip-words")));
  const std::array<std::tuple<QDoubleSpinBox**, QString, QString, QString>, 3> sx_weights{{
      {&structxlip_structure_weight_, tr("StructXLIP structure weight"),
       QStringLiteral("--structxlip-structure-weight"),
       tr("weight of the edge map ↔ filtered caption CLIP term (StructXLIP: 0.5)")},
      {&structxlip_consistency_weight_, tr("StructXLIP consistency weight"),
       QStringLiteral("--structxlip-consistency-weight"),
       tr("weight of the RGB ↔ edge-map cosine term (StructXLIP: 0.05)")},
      {&structxlip_local_weight_, tr("StructXLIP local weight"),
       QStringLiteral("--structxlip-local-weight"),
       tr("weight of the edge segments ↔ caption chunks term (StructXLIP: 0.1; 0 = off, for "
          "data without segments)")}}};
  for (const auto& [field, label, flag, tip] : sx_weights) {
    auto* spin = new QDoubleSpinBox(this);
    spin->setRange(0.0, 100.0);
    spin->setDecimals(3);
    spin->setSingleStep(0.05);
    spin->setToolTip(flag + QStringLiteral(": ") + tip);
    form->addRow(label, spin);
    form->addRow(message_label(flag));
    *field = spin;
  }
  structxlip_chunk_words_ = new QSpinBox(this);
  structxlip_chunk_words_->setRange(1, 77);
  structxlip_chunk_words_->setToolTip(
      tr("--structxlip-chunk-words: words per caption chunk of the local term"));
  form->addRow(tr("StructXLIP chunk words"), structxlip_chunk_words_);
  form->addRow(message_label(QStringLiteral("--structxlip-chunk-words")));
  // A framework's own settings mean something only with that framework.
  auto follow_framework = [this] {
    const QString f = framework_->currentText();
    const bool longclip = f == QStringLiteral("longclip"), debias = f == QStringLiteral("debias");
    longclip_pca_->setEnabled(longclip);
    longclip_smoothing_->setEnabled(longclip || debias);
    debias_keep_->setEnabled(debias);
    debias_pad_->setEnabled(debias);
    const bool finelip = f == QStringLiteral("finelip");
    finelip_margin_->setEnabled(finelip);
    finelip_hardest_->setEnabled(finelip);
    finelip_lr_->setEnabled(finelip);
    const bool goal = f == QStringLiteral("goal");
    const bool structxlip = f == QStringLiteral("structxlip");
    // StructXLIP's edge segments are GOAL's, read by its local term only.
    goal_segments_->setEnabled(goal || (structxlip && structxlip_local_weight_->value() > 0));
    goal_crop_weight_->setEnabled(goal);
    for (QWidget* w : std::initializer_list<QWidget*>{
             structxlip_words_, structxlip_structure_weight_, structxlip_consistency_weight_,
             structxlip_local_weight_, structxlip_chunk_words_}) {
      w->setEnabled(structxlip);
    }
  };
  connect(framework_, &QComboBox::currentIndexChanged, this, follow_framework);
  connect(structxlip_local_weight_, &QDoubleSpinBox::valueChanged, this, follow_framework);
  follow_framework();
  max_image_megapixels_ = new QSpinBox(this);
  max_image_megapixels_->setRange(0, std::numeric_limits<int>::max() / 1000000);
  max_image_megapixels_->setSuffix(tr(" megapixels"));
  max_image_megapixels_->setSpecialValueText(
      tr("default (%L1 pixels)").arg(static_cast<qlonglong>(hnclip::kDefaultMaxImagePixels)));
  max_image_megapixels_->setToolTip(
      tr("--max-image-pixels: a data set's image larger than this (width × height, read from its "
         "header) is refused before the run is recorded"));
  form->addRow(tr("Largest image"), max_image_megapixels_);
  form->addRow(message_label(QStringLiteral("--max-image-pixels")));
  allow_outside_root_ =
      new QCheckBox(tr("accept image paths outside the data root (absolute or ../)"), this);
  allow_outside_root_->setToolTip(
      tr("--allow-outside-root: a manifest from someone else may name any file on this machine"));
  form->addRow(QString(), allow_outside_root_);
  skip_bad_images_ = new QCheckBox(tr("skip a training image that fails to decode"), this);
  skip_bad_images_->setToolTip(
      tr("--skip-bad-images: drop the pair and count it in the run's data summary, instead of "
         "failing the run"));
  form->addRow(QString(), skip_bad_images_);
  context_length_ = new QSpinBox(this);
  context_length_->setRange(1, 100000);
  context_length_->setToolTip(
      tr("Word tokenizer context (a checkpoint's own is used with --init)"));
  form->addRow(tr("Context length"), context_length_);
  form->addRow(message_label(QStringLiteral("--context-length")));
  weight_decay_ = new QDoubleSpinBox(this);
  weight_decay_->setRange(0.0, 1e6);
  weight_decay_->setDecimals(4);
  weight_decay_->setSingleStep(0.01);
  weight_decay_->setToolTip(tr("AdamW weight decay (not on gains, biases, embeddings, s)"));
  form->addRow(tr("Weight decay"), weight_decay_);
  warmup_ = new QDoubleSpinBox(this);
  warmup_->setRange(0.0, 1.0);
  warmup_->setDecimals(3);
  warmup_->setSingleStep(0.01);
  warmup_->setToolTip(tr("Fraction of all steps of linear warm-up before the cosine decay"));
  form->addRow(tr("Warm-up fraction"), warmup_);
  form->addRow(message_label(QStringLiteral("--warmup")));
  grad_clip_ = new QDoubleSpinBox(this);
  grad_clip_->setRange(0.0, 1e6);
  grad_clip_->setDecimals(3);
  grad_clip_->setSpecialValueText(tr("off"));
  grad_clip_->setToolTip(tr("Clip the global gradient norm to this value"));
  form->addRow(tr("Gradient clipping"), grad_clip_);
  gbar_snapshots_ = new QSpinBox(this);
  gbar_snapshots_->setRange(0, 1024);
  gbar_snapshots_->setToolTip(tr("Fixed training batches whose Ḡ is stored every epoch"));
  form->addRow(tr("Ḡ snapshots"), gbar_snapshots_);
  threads_ = new QSpinBox(this);
  threads_->setRange(1, 1024);
  threads_->setToolTip(tr("LibTorch intra-op threads"));
  form->addRow(tr("Threads"), threads_);
  loader_workers_ = new QSpinBox(this);
  loader_workers_->setRange(0, 1024);
  form->addRow(tr("Loader workers"), loader_workers_);
  precision_ = new QComboBox(this);
  precision_->addItems({QStringLiteral("auto"), QStringLiteral("fp32"), QStringLiteral("bf16")});
  precision_->setToolTip(tr("auto: bf16 autocast on CUDA, fp32 on the CPU; bf16: autocast on the CPU too "
                            "(faster on CPUs with bf16 instructions; README)"));
  form->addRow(tr("Precision"), precision_);
  form->addRow(message_label(QStringLiteral("--precision")));
  processes_ = new QSpinBox(this);
  processes_->setRange(1, 64);
  processes_->setToolTip(
      tr("Data-parallel processes on this machine (world size): the window's process is rank 0 "
         "and starts the others as hnclip programs; each trains its share of every global batch "
         "with the threads above (1 each on a small machine), S and Ḡ are built over the whole "
         "batch. No pausing such a run. (Across machines: the CLI, README)"));
  form->addRow(tr("Processes"), processes_);
  form->addRow(message_label(QStringLiteral("--world-size")));
  dist_eval_ = new QComboBox(this);
  dist_eval_->addItem(tr("sharded over the processes"), QStringLiteral("sharded"));
  dist_eval_->addItem(tr("rank 0 alone"), QStringLiteral("rank0"));
  dist_eval_->setToolTip(
      tr("How a run of several processes evaluates: every process encodes its share of the split "
         "and rank 0 ranks it all (faster), or rank 0 encodes it all while the others wait. The "
         "same recall either way."));
  form->addRow(tr("Evaluation"), dist_eval_);
  form->addRow(message_label(QStringLiteral("--dist-eval")));
  eval_at_start_ = new QCheckBox(tr("evaluate the starting model as epoch 0"), this);
  form->addRow(QString(), eval_at_start_);

  for (auto* e : {train_split_, test_split_, val_split_, goal_segments_, structxlip_words_})
    connect(e, &QLineEdit::textChanged, this, &TrainAdvancedFields::edited);
  for (auto* s : {max_image_megapixels_, context_length_, gbar_snapshots_, threads_, loader_workers_,
                 processes_, longclip_pca_, debias_pad_, structxlip_chunk_words_})
    connect(s, &QSpinBox::valueChanged, this, &TrainAdvancedFields::edited);
  for (auto* s : {weight_decay_, warmup_, grad_clip_, longclip_smoothing_, debias_keep_,
                 finelip_margin_, finelip_lr_, goal_crop_weight_, structxlip_structure_weight_,
                 structxlip_consistency_weight_, structxlip_local_weight_})
    connect(s, &QDoubleSpinBox::valueChanged, this, &TrainAdvancedFields::edited);
  for (auto* c : {precision_, batch_sampler_, framework_, train_towers_, dist_eval_})
    connect(c, &QComboBox::currentIndexChanged, this, &TrainAdvancedFields::edited);
  for (auto* b : {allow_outside_root_, skip_bad_images_, eval_at_start_, hn_, finelip_hardest_})
    connect(b, &QCheckBox::toggled, this, &TrainAdvancedFields::edited);
}

void TrainAdvancedFields::write(const hnclip::TrainConfig& c) {
  train_split_->setText(QString::fromStdString(c.train_split));
  test_split_->setText(QString::fromStdString(c.test_split));
  val_split_->setText(QString::fromStdString(c.val_split));
  batch_sampler_->setCurrentText(QString::fromStdString(hnclip::to_string(c.batch_sampler)));
  framework_->setCurrentText(QString::fromStdString(hnclip::to_string(c.framework)));
  train_towers_->setCurrentText(QString::fromStdString(c.train_towers));
  hn_->setChecked(c.hn);
  longclip_pca_->setValue(static_cast<int>(c.longclip_pca_components));
  debias_pad_->setValue(static_cast<int>(c.debias_pad_tokens));
  finelip_hardest_->setChecked(c.finelip_hardest_negative);
  goal_segments_->setText(QString::fromStdString(c.goal_segments));
  structxlip_words_->setText(QString::fromStdString(c.structxlip_words));
  structxlip_chunk_words_->setValue(static_cast<int>(c.structxlip_chunk_words));
  given_max_pixels_ = c.max_image_pixels;
  max_image_megapixels_->setValue(static_cast<int>(
      std::min<int64_t>(c.max_image_pixels / 1000000, max_image_megapixels_->maximum())));
  shown_megapixels_ = max_image_megapixels_->value();
  allow_outside_root_->setChecked(c.allow_outside_root);
  skip_bad_images_->setChecked(c.skip_bad_images);
  context_length_->setValue(static_cast<int>(c.context_length));
  given_.clear();
  for (auto [spin, v] :
       {std::pair{weight_decay_, c.weight_decay}, std::pair{warmup_, c.warmup_fraction},
        std::pair{grad_clip_, c.grad_clip},
        std::pair{longclip_smoothing_, c.longclip_label_smoothing},
        std::pair{debias_keep_, c.debias_keep_ratio},
        std::pair{finelip_margin_, c.finelip_margin},
        std::pair{finelip_lr_, c.finelip_aggregation_lr},
        std::pair{goal_crop_weight_, c.goal_crop_weight},
        std::pair{structxlip_structure_weight_, c.structxlip_structure_weight},
        std::pair{structxlip_consistency_weight_, c.structxlip_consistency_weight},
        std::pair{structxlip_local_weight_, c.structxlip_local_weight}}) {
    spin->setValue(v);
    given_.remember(spin, v, spin->value());
  }
  gbar_snapshots_->setValue(c.gbar_snapshots);
  threads_->setValue(c.threads);
  loader_workers_->setValue(c.loader_workers);
  precision_->setCurrentText(QString::fromStdString(hnclip::to_string(c.precision)));
  processes_->setValue(c.world_size);
  dist_eval_->setCurrentIndex(dist_eval_->findData(QString::fromStdString(c.dist_eval)));
  given_backend_ = c.dist_backend;
  eval_at_start_->setChecked(c.eval_at_start);
}

void TrainAdvancedFields::read(hnclip::TrainConfig& c) const {
  c.train_split = train_split_->text().trimmed().toStdString();
  c.test_split = test_split_->text().trimmed().toStdString();
  c.val_split = val_split_->text().trimmed().toStdString();
  hnclip::from_string(batch_sampler_->currentText().toStdString(), c.batch_sampler);
  hnclip::from_string(framework_->currentText().toStdString(), c.framework);
  c.train_towers = train_towers_->currentText().toStdString();
  c.hn = hn_->isChecked();
  c.longclip_pca_components = longclip_pca_->value();
  c.longclip_label_smoothing = given_.value(longclip_smoothing_, longclip_smoothing_->value());
  c.debias_keep_ratio = given_.value(debias_keep_, debias_keep_->value());
  c.debias_pad_tokens = debias_pad_->value();
  c.finelip_margin = given_.value(finelip_margin_, finelip_margin_->value());
  c.finelip_hardest_negative = finelip_hardest_->isChecked();
  c.finelip_aggregation_lr = given_.value(finelip_lr_, finelip_lr_->value());
  c.goal_segments = goal_segments_->text().trimmed().toStdString();
  c.goal_crop_weight = given_.value(goal_crop_weight_, goal_crop_weight_->value());
  c.structxlip_words = structxlip_words_->text().trimmed().toStdString();
  c.structxlip_structure_weight =
      given_.value(structxlip_structure_weight_, structxlip_structure_weight_->value());
  c.structxlip_consistency_weight =
      given_.value(structxlip_consistency_weight_, structxlip_consistency_weight_->value());
  c.structxlip_local_weight =
      given_.value(structxlip_local_weight_, structxlip_local_weight_->value());
  c.structxlip_chunk_words = structxlip_chunk_words_->value();
  launch_other_frameworks_settings_at_defaults(c);
  const int megapixels = max_image_megapixels_->value();
  c.max_image_pixels =
      megapixels == shown_megapixels_ ? given_max_pixels_ : int64_t{megapixels} * 1000000;
  c.allow_outside_root = allow_outside_root_->isChecked();
  c.skip_bad_images = skip_bad_images_->isChecked();
  c.context_length = context_length_->value();
  c.weight_decay = given_.value(weight_decay_, weight_decay_->value());
  c.warmup_fraction = given_.value(warmup_, warmup_->value());
  c.grad_clip = given_.value(grad_clip_, grad_clip_->value());
  c.gbar_snapshots = gbar_snapshots_->value();
  c.threads = threads_->value();
  c.loader_workers = loader_workers_->value();
  hnclip::from_string(precision_->currentText().toStdString(), c.precision);
  c.world_size = processes_->value();
  c.dist_backend = c.world_size > 1 ? given_backend_ : std::string();
  c.dist_eval = dist_eval_->currentData().toString().toStdString();
  c.eval_at_start = eval_at_start_->isChecked();
}

void TrainAdvancedFields::launch_other_frameworks_settings_at_defaults(hnclip::TrainConfig& c) {
  // The rules of job/settings_without_effect.h, which `hnclip train` refuses flags by: a
  // setting greyed out here would be recorded with a run that never reads it (and set two runs
  // apart in a config diff that trained alike). The fields keep their values for their framework.
  using hnclip::Framework;
  const hnclip::TrainConfig d;
  const Framework f = c.framework;
  if (f != Framework::kLongClip) c.longclip_pca_components = d.longclip_pca_components;
  if (f != Framework::kLongClip && f != Framework::kDebias)
    c.longclip_label_smoothing = d.longclip_label_smoothing;
  if (f != Framework::kDebias) {
    c.debias_keep_ratio = d.debias_keep_ratio;
    c.debias_pad_tokens = d.debias_pad_tokens;
  }
  if (f != Framework::kFinelip) {
    c.finelip_margin = d.finelip_margin;
    c.finelip_hardest_negative = d.finelip_hardest_negative;
    c.finelip_aggregation_lr = d.finelip_aggregation_lr;
  }
  if (f != Framework::kGoal) c.goal_crop_weight = d.goal_crop_weight;
  if (f != Framework::kGoal && !(f == Framework::kStructxlip && c.structxlip_local_weight > 0))
    c.goal_segments = d.goal_segments;
  if (f != Framework::kStructxlip) {
    c.structxlip_words = d.structxlip_words;
    c.structxlip_structure_weight = d.structxlip_structure_weight;
    c.structxlip_consistency_weight = d.structxlip_consistency_weight;
    c.structxlip_local_weight = d.structxlip_local_weight;
    c.structxlip_chunk_words = d.structxlip_chunk_words;
  }
}

void TrainAdvancedFields::setWordTokenizerBuilt(bool built) {
  context_length_->setEnabled(built);
  context_length_->setToolTip(built ? tr("Word tokenizer context of this run from scratch")
                                    : tr("Unused: the starting checkpoint's tokenizer has its own "
                                         "context (this sizes a run from scratch only)"));
}

QStringList TrainAdvancedFields::changedFromDefaults() const {
  hnclip::TrainConfig c;
  read(c);
  const hnclip::TrainConfig d;
  QStringList changed;
  if (c.train_split != d.train_split)
    changed << tr("train split %1").arg(QString::fromStdString(c.train_split));
  if (c.test_split != d.test_split)
    changed << tr("test split %1").arg(QString::fromStdString(c.test_split));
  if (c.val_split != d.val_split)
    changed << tr("validation split %1").arg(QString::fromStdString(c.val_split));
  if (c.batch_sampler != d.batch_sampler)
    changed << tr("%1 batches").arg(QString::fromStdString(hnclip::to_string(c.batch_sampler)));
  if (c.framework != d.framework)
    changed << tr("framework %1").arg(QString::fromStdString(hnclip::to_string(c.framework)));
  if (c.hn != d.hn) changed << tr("no HN margins");
  if (c.longclip_pca_components != d.longclip_pca_components)
    changed << tr("Long-CLIP PCA %1").arg(c.longclip_pca_components);
  if (c.longclip_label_smoothing != d.longclip_label_smoothing)
    changed << tr("label smoothing %1").arg(c.longclip_label_smoothing);
  if (c.debias_keep_ratio != d.debias_keep_ratio)
    changed << tr("DeBias keeps %1").arg(c.debias_keep_ratio);
  if (c.debias_pad_tokens != d.debias_pad_tokens)
    changed << tr("DeBias padding %1").arg(c.debias_pad_tokens);
  if (c.finelip_margin != d.finelip_margin)
    changed << tr("FineLIP margin %1").arg(c.finelip_margin);
  if (c.finelip_hardest_negative != d.finelip_hardest_negative)
    changed << tr("FineLIP hardest negatives");
  if (c.finelip_aggregation_lr != d.finelip_aggregation_lr)
    changed << tr("FineLIP aggregation lr %1").arg(c.finelip_aggregation_lr);
  if (c.train_towers != d.train_towers)
    changed << tr("%1 tower only").arg(QString::fromStdString(c.train_towers));
  if (c.goal_segments != d.goal_segments)
    changed << tr("GOAL segments %1").arg(QString::fromStdString(c.goal_segments));
  if (c.goal_crop_weight != d.goal_crop_weight)
    changed << tr("GOAL crop weight %1").arg(c.goal_crop_weight);
  if (c.structxlip_words != d.structxlip_words)
    changed << tr("StructXLIP words %1").arg(QString::fromStdString(c.structxlip_words));
  if (c.structxlip_structure_weight != d.structxlip_structure_weight)
    changed << tr("StructXLIP structure weight %1").arg(c.structxlip_structure_weight);
  if (c.structxlip_consistency_weight != d.structxlip_consistency_weight)
    changed << tr("StructXLIP consistency weight %1").arg(c.structxlip_consistency_weight);
  if (c.structxlip_local_weight != d.structxlip_local_weight)
    changed << tr("StructXLIP local weight %1").arg(c.structxlip_local_weight);
  if (c.structxlip_chunk_words != d.structxlip_chunk_words)
    changed << tr("StructXLIP chunk words %1").arg(c.structxlip_chunk_words);
  if (c.max_image_pixels != d.max_image_pixels)
    changed << tr("largest image %L1 pixels").arg(static_cast<qlonglong>(c.max_image_pixels));
  if (c.allow_outside_root != d.allow_outside_root) changed << tr("paths outside the root");
  if (c.skip_bad_images != d.skip_bad_images) changed << tr("skip bad images");
  if (c.context_length != d.context_length) changed << tr("context %1").arg(c.context_length);
  if (c.weight_decay != d.weight_decay) changed << tr("weight decay %1").arg(c.weight_decay);
  if (c.warmup_fraction != d.warmup_fraction) changed << tr("warm-up %1").arg(c.warmup_fraction);
  if (c.grad_clip != d.grad_clip) changed << tr("grad clip %1").arg(c.grad_clip);
  if (c.gbar_snapshots != d.gbar_snapshots) changed << tr("Ḡ snapshots %1").arg(c.gbar_snapshots);
  if (c.threads != d.threads) changed << tr("threads %1").arg(c.threads);
  if (c.loader_workers != d.loader_workers)
    changed << tr("loader workers %1").arg(c.loader_workers);
  if (c.precision != d.precision)
    changed << tr("precision %1").arg(QString::fromStdString(hnclip::to_string(c.precision)));
  if (c.world_size != d.world_size) changed << tr("%1 processes").arg(c.world_size);
  if (c.dist_eval != d.dist_eval)
    changed << tr("evaluation on %1").arg(QString::fromStdString(c.dist_eval));
  if (c.eval_at_start != d.eval_at_start) changed << tr("no start evaluation");
  return changed;
}

}  // namespace hnclip::gui

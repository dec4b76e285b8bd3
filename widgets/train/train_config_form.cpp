#include "widgets/train/train_config_form.h"

#include <cmath>
#include <filesystem>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStringList>
#include <QVBoxLayout>

#include "data/benchmark_registry.h"
#include "model/clip_config.h"
#include "text/control_character.h"
#include "train/builtin_recipe.h"
#include "widgets/train/train_advanced_fields.h"

namespace hnclip::gui {
namespace {

constexpr double kGammaMax = 2.0;      // the slider's range for γ
constexpr double kGammaSpinMax = 1e3;  // typed (or copied) γ: only validate() limits it
constexpr double kGammaStep = 0.05;    // slider and spin box step
constexpr int kGammaSliderTicks = static_cast<int>(kGammaMax / kGammaStep + 0.5);
const char* const kPretrainedItem = "pretrained";  // model combo data: the built-in tiny checkpoint
const char* const kCheckpointItem = "checkpoint";  // model combo data: a file the user picks
const char* const kRandomPrefix = "random:";       // model combo data: random init of a preset
const char* const kDefaultPreset = "tiny";         // TrainConfig's model "" without --init

QString flag_of(const QString& message) {
  // Core messages start with the flag they are about ("--lr must be finite and > 0 (got 0)").
  if (!message.startsWith(QStringLiteral("--"))) return {};
  const int end = message.indexOf(QLatin1Char(' '));
  return end < 0 ? message : message.left(end);
}

}  // namespace

TrainConfigForm::TrainConfigForm(const std::vector<std::string>& devices, QWidget* parent)
    : QWidget(parent), devices_(devices) {
  buildUi();
  setConfig(hnclip::builtin_finetune_recipe());
}

QLabel* TrainConfigForm::messageLabel(const QString& flag) {
  auto* label = new QLabel(this);
  label->setWordWrap(true);
  label->setVisible(false);
  // The palette's link colour stays readable on light and dark themes; bold marks it as a problem.
  label->setForegroundRole(QPalette::Link);
  QFont f = label->font();
  f.setBold(true);
  label->setFont(f);
  label->setObjectName(QStringLiteral("message") + flag);
  messages_[flag] = label;
  return label;
}

void TrainConfigForm::buildUi() {
  auto* outer = new QVBoxLayout(this);

  // Data.
  auto* data_box = new QGroupBox(tr("Benchmark"), this);
  auto* data = new QFormLayout(data_box);
  benchmark_ = new QComboBox(data_box);
  for (const auto& name : hnclip::benchmark_names())
    benchmark_->addItem(QString::fromStdString(name));
  benchmark_->setToolTip(tr("synthetic: the built-in procedural dense-caption benchmark"));
  data->addRow(tr("Benchmark"), benchmark_);
  benchmark_size_ = new QComboBox(data_box);
  benchmark_size_->addItems(
      {QStringLiteral("small"), QStringLiteral("default"), QStringLiteral("large")});
  data->addRow(tr("Size"), benchmark_size_);
  data_seed_ = new SeedEdit(data_box);
  data->addRow(tr("Data seed"), data_seed_);
  data->addRow(messageLabel(QStringLiteral("--data-seed")));
  auto* root_row = new QHBoxLayout;
  data_root_ = new QLineEdit(data_box);
  data_root_->setPlaceholderText(tr("data set folder or manifest"));
  data_root_browse_ = new QPushButton(tr("Browse…"), data_box);
  root_row->addWidget(data_root_);
  root_row->addWidget(data_root_browse_);
  data->addRow(tr("Data root"), root_row);
  data->addRow(messageLabel(QStringLiteral("--data-root")));
  data_fraction_ = new QDoubleSpinBox(data_box);
  data_fraction_->setRange(0.0, 1.0);
  data_fraction_->setDecimals(3);
  data_fraction_->setSingleStep(0.05);
  data->addRow(tr("Data fraction"), data_fraction_);
  data->addRow(messageLabel(QStringLiteral("--data-fraction")));
  benchmark_summary_ = new QLabel(data_box);
  benchmark_summary_->setWordWrap(true);
  benchmark_summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  data->addRow(benchmark_summary_);
  outer->addWidget(data_box);

  // Model.
  auto* model_box = new QGroupBox(tr("Starting model"), this);
  auto* model = new QFormLayout(model_box);
  model_ = new QComboBox(model_box);
  model_->addItem(tr("Built-in pretrained (tiny)"), QString::fromLatin1(kPretrainedItem));
  model_->addItem(tr("Checkpoint file…"), QString::fromLatin1(kCheckpointItem));
  for (const auto& preset : hnclip::clip_preset_names()) {
    model_->addItem(tr("Random init: %1").arg(QString::fromStdString(preset)),
                    QString::fromLatin1(kRandomPrefix) + QString::fromStdString(preset));
  }
  model->addRow(tr("Model"), model_);
  auto* init_row = new QHBoxLayout;
  init_path_ = new QLineEdit(model_box);
  init_path_->setPlaceholderText(
      tr("checkpoint (.pt, .bin, .safetensors) or a Hugging Face / open_clip folder"));
  init_browse_ = new QPushButton(tr("Browse…"), model_box);
  init_row->addWidget(init_path_);
  init_row->addWidget(init_browse_);
  model->addRow(tr("Checkpoint"), init_row);
  model->addRow(messageLabel(QStringLiteral("--init")));
  auto* vocab_row = new QHBoxLayout;
  vocab_ = new QLineEdit(model_box);
  vocab_->setPlaceholderText(tr("default: the shipped bpe_simple_vocab_16e6.txt.gz"));
  vocab_->setToolTip(
      tr("CLIP's BPE vocabulary, needed to start from an OpenAI CLIP or Long-CLIP file"));
  vocab_browse_ = new QPushButton(tr("Browse…"), model_box);
  vocab_row->addWidget(vocab_);
  vocab_row->addWidget(vocab_browse_);
  model->addRow(tr("BPE vocabulary"), vocab_row);
  model->addRow(messageLabel(QStringLiteral("--vocab")));
  long_clip_ = new QCheckBox(tr("stretch a 77-position CLIP file to Long-CLIP's 248"), model_box);
  model->addRow(QString(), long_clip_);
  activation_ = new QComboBox(model_box);
  activation_->addItem(tr("as the file records it"), QString());
  activation_->addItem(tr("QuickGELU (OpenAI, Long-CLIP)"), QStringLiteral("quick_gelu"));
  activation_->addItem(tr("GELU (open_clip LAION)"), QStringLiteral("gelu"));
  activation_->setToolTip(tr("--activation: the MLP activation of a file that does not record it "
                             "(open_clip training checkpoints need it; OpenAI-layout files "
                             "otherwise assume QuickGELU and say so)"));
  model->addRow(tr("Activation"), activation_);
  auto* peft_row = new QHBoxLayout;
  peft_ = new QComboBox(model_box);
  peft_->addItem(tr("full fine-tuning"), QStringLiteral("none"));
  peft_->addItem(QStringLiteral("LoRA"), QStringLiteral("lora"));
  peft_->addItem(QStringLiteral("DoRA"), QStringLiteral("dora"));
  peft_rank_ = new QSpinBox(model_box);
  peft_rank_->setRange(1, 1000000);
  peft_rank_->setPrefix(tr("r "));
  peft_alpha_ = new QDoubleSpinBox(model_box);
  peft_alpha_->setRange(0.0, 1e6);
  peft_alpha_->setPrefix(tr("α "));
  peft_towers_ = new QComboBox(model_box);
  peft_towers_->addItems({QStringLiteral("both"), QStringLiteral("image"), QStringLiteral("text")});
  peft_row->addWidget(peft_);
  peft_row->addWidget(peft_towers_);
  model->addRow(tr("Adapters"), peft_row);
  auto* peft_size_row = new QHBoxLayout;
  peft_size_row->addWidget(peft_rank_);
  peft_size_row->addWidget(peft_alpha_);
  model->addRow(QString(), peft_size_row);
  model->addRow(messageLabel(QStringLiteral("--peft")));
  outer->addWidget(model_box);

  // Loss.
  auto* loss_box = new QGroupBox(tr("Loss"), this);
  auto* loss = new QFormLayout(loss_box);
  auto* gamma_row = new QHBoxLayout;
  gamma_ = new QDoubleSpinBox(loss_box);
  gamma_->setRange(0.0, kGammaSpinMax);  // the slider covers [0, 2]; typed values go further
  gamma_->setSingleStep(kGammaStep);
  gamma_->setDecimals(2);
  gamma_->setToolTip(tr("Margin strength γ: 0 is plain InfoNCE"));
  gamma_slider_ = new QSlider(Qt::Horizontal, loss_box);
  gamma_slider_->setRange(0, kGammaSliderTicks);
  gamma_row->addWidget(gamma_);
  gamma_row->addWidget(gamma_slider_, 1);
  loss->addRow(tr("γ (margin)"), gamma_row);
  loss->addRow(messageLabel(QStringLiteral("--gamma")));
  auto* gbar_row = new QHBoxLayout;
  gbar_recomputed_ = new QRadioButton(tr("recomputed"), loss_box);
  gbar_frozen_ = new QRadioButton(tr("frozen"), loss_box);
  gbar_recomputed_->setToolTip(tr("Ḡ from the live text encoder, every batch"));
  gbar_frozen_->setToolTip(tr("Ḡ from a frozen copy of the starting text encoder"));
  gbar_row->addWidget(gbar_recomputed_);
  gbar_row->addWidget(gbar_frozen_);
  gbar_row->addStretch(1);
  loss->addRow(tr("Ḡ"), gbar_row);
  token_weight_ = new QDoubleSpinBox(loss_box);
  token_weight_->setRange(0.0, 1e6);
  token_weight_->setSingleStep(0.05);
  loss->addRow(tr("Token-term weight"), token_weight_);
  auto* scale_row = new QHBoxLayout;
  logit_scale_ = new QDoubleSpinBox(loss_box);
  logit_scale_->setRange(0.0, 100.0);
  logit_scale_->setDecimals(1);
  logit_scale_->setSpecialValueText(tr("checkpoint's"));
  fixed_scale_ = new QCheckBox(tr("fixed"), loss_box);
  scale_row->addWidget(logit_scale_);
  scale_row->addWidget(fixed_scale_);
  loss->addRow(tr("Logit scale s"), scale_row);
  outer->addWidget(loss_box);

  // Optimisation and execution.
  auto* opt_box = new QGroupBox(tr("Training"), this);
  auto* opt = new QFormLayout(opt_box);
  epochs_ = new QSpinBox(opt_box);
  epochs_->setRange(1, 1000000);
  opt->addRow(tr("Epochs"), epochs_);
  batch_ = new QSpinBox(opt_box);
  batch_->setRange(2, 65536);
  opt->addRow(tr("Batch size"), batch_);
  opt->addRow(messageLabel(QStringLiteral("--batch")));
  lr_ = new QLineEdit(opt_box);
  lr_->setToolTip(tr("Peak learning rate, e.g. 5e-5"));
  opt->addRow(tr("Learning rate"), lr_);
  opt->addRow(messageLabel(QStringLiteral("--lr")));
  seed_ = new SeedEdit(opt_box);
  opt->addRow(tr("Seed"), seed_);
  opt->addRow(messageLabel(QStringLiteral("--seed")));
  probe_every_ = new QSpinBox(opt_box);
  probe_every_->setRange(0, 100000);
  probe_every_->setSpecialValueText(tr("off"));
  probe_every_->setToolTip(tr("Gradient probe (standard vs boosted) every K steps"));
  opt->addRow(tr("Probe every"), probe_every_);
  device_ = new QComboBox(opt_box);
  device_->addItem(tr("auto"), QStringLiteral("auto"));
  device_->addItem(tr("CPU"), QStringLiteral("cpu"));
  bool any_cuda = false;
  for (const auto& d : devices_) {
    if (d.rfind("cuda", 0) == 0) {
      device_->addItem(QString::fromStdString(d).toUpper(), QString::fromStdString(d));
      any_cuda = true;
    }
  }
  if (!any_cuda) {
    device_->addItem(tr("CUDA (not available)"), QStringLiteral("cuda"));
    // Greyed out: this build or machine has no CUDA device.
    if (auto* m = qobject_cast<QStandardItemModel*>(device_->model()))
      m->item(device_->count() - 1)->setEnabled(false);
  }
  opt->addRow(tr("Device"), device_);
  opt->addRow(messageLabel(QStringLiteral("--device")));
  name_ = new QLineEdit(opt_box);
  name_->setPlaceholderText(tr("optional run name"));
  opt->addRow(tr("Run name"), name_);
  opt->addRow(messageLabel(QStringLiteral("--name")));
  outer->addWidget(opt_box);
  advanced_toggle_ = new QPushButton(this);
  advanced_toggle_->setCheckable(true);
  advanced_toggle_->setFlat(true);
  advanced_toggle_->setStyleSheet(QStringLiteral("text-align: left"));
  advanced_toggle_->setObjectName(QStringLiteral("advancedToggle"));
  outer->addWidget(advanced_toggle_);
  advanced_ =
      new TrainAdvancedFields([this](const QString& flag) { return messageLabel(flag); }, this);
  advanced_->setVisible(false);
  outer->addWidget(advanced_);
  connect(advanced_toggle_, &QPushButton::toggled, this, &TrainConfigForm::setAdvancedVisible);

  auto* same_as = new QPushButton(tr("Same as run…"), this);
  same_as->setToolTip(tr("Copy the configuration of a stored run"));
  outer->addWidget(same_as);
  outer->addWidget(messageLabel(QStringLiteral("general")));
  outer->addStretch(1);

  // Wiring.
  connect(gamma_, qOverload<double>(&QDoubleSpinBox::valueChanged), this, [this](double v) {
    const QSignalBlocker block(gamma_slider_);
    gamma_slider_->setValue(static_cast<int>(std::lround(v / kGammaStep)));
    revalidate();
  });
  connect(gamma_slider_, &QSlider::valueChanged, this,
          [this](int v) { gamma_->setValue(v * kGammaStep); });
  connect(data_root_browse_, &QPushButton::clicked, this, [this] {
    const bool manifest = benchmark_->currentText() == QStringLiteral("manifest");
    const QString path =
        manifest
            ? QFileDialog::getOpenFileName(this, tr("Manifest (JSONL or CSV)"), data_root_->text())
            : QFileDialog::getExistingDirectory(this, tr("Data set folder"), data_root_->text());
    if (!path.isEmpty()) data_root_->setText(path);
  });
  connect(init_browse_, &QPushButton::clicked, this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Starting checkpoint"), init_path_->text(),
                                     tr("Model files (*.pt *.pth *.bin *.safetensors);;All files (*)"));
    if (!path.isEmpty()) init_path_->setText(path);
  });
  connect(vocab_browse_, &QPushButton::clicked, this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("CLIP BPE vocabulary"), vocab_->text(),
                                     tr("BPE vocabulary (*.txt.gz);;All files (*)"));
    if (!path.isEmpty()) vocab_->setText(path);
  });
  connect(same_as, &QPushButton::clicked, this, &TrainConfigForm::sameAsRunRequested);
  const auto edited = [this] { revalidate(); };
  for (auto* c : {benchmark_, benchmark_size_, model_, device_, peft_, peft_towers_, activation_})
    connect(c, &QComboBox::currentIndexChanged, this, edited);
  connect(advanced_, &TrainAdvancedFields::edited, this, edited);
  for (QLineEdit* e : {data_root_, init_path_, vocab_, lr_, name_, static_cast<QLineEdit*>(seed_),
                       static_cast<QLineEdit*>(data_seed_)})
    connect(e, &QLineEdit::textChanged, this, edited);
  for (auto* s : {epochs_, batch_, probe_every_, peft_rank_})
    connect(s, &QSpinBox::valueChanged, this, edited);
  for (auto* s : {token_weight_, logit_scale_, data_fraction_, peft_alpha_})
    connect(s, &QDoubleSpinBox::valueChanged, this, edited);
  for (auto* b : std::initializer_list<QAbstractButton*>{gbar_recomputed_, gbar_frozen_,
                                                         fixed_scale_, long_clip_})
    connect(b, &QAbstractButton::toggled, this, edited);
}

void TrainConfigForm::setAdvancedVisible(bool visible) {
  const QSignalBlocker block(advanced_toggle_);
  advanced_toggle_->setChecked(visible);
  advanced_->setVisible(visible);
  updateAdvancedTitle();
}

bool TrainConfigForm::advancedVisible() const { return advanced_toggle_->isChecked(); }
QString TrainConfigForm::advancedTitle() const { return advanced_toggle_->text(); }

void TrainConfigForm::updateAdvancedTitle() {
  const QStringList changed = advanced_->changedFromDefaults();
  const QString arrow = advancedVisible() ? QStringLiteral("▾ ") : QStringLiteral("▸ ");
  advanced_toggle_->setText(changed.isEmpty()
                                ? arrow + tr("Advanced (all defaults)")
                                : arrow + tr("Advanced (%1 changed: %2)")
                                              .arg(changed.size())
                                              .arg(changed.join(QStringLiteral(", "))));
}

hnclip::TrainConfig TrainConfigForm::config() const {
  hnclip::TrainConfig c = base_;
  c.benchmark = benchmark_->currentText().toStdString();
  const bool synthetic = c.benchmark == "synthetic";
  // The generator's size and seed are greyed out for a data set on disk, which reads neither: a
  // run would record them though unread, and a new run refuses them (the built-in benchmark's
  // values are kept in the fields for when it comes back).
  const hnclip::TrainConfig defaults;
  c.benchmark_size = defaults.benchmark_size;
  c.data_seed = defaults.data_seed;
  if (synthetic) {
    hnclip::from_string(benchmark_size_->currentText().toStdString(), c.benchmark_size);
    c.data_seed = data_seed_->seed().value_or(0);  // none is refused by revalidate()
  }
  c.benchmark_root = synthetic ? std::string() : data_root_->text().trimmed().toStdString();
  c.data_fraction = given_.value(data_fraction_, data_fraction_->value());
  const QString model = model_->currentData().toString();
  if (model == QLatin1String(kPretrainedItem) || model == QLatin1String(kCheckpointItem)) {
    c.init = model == QLatin1String(kPretrainedItem) ? std::string(hnclip::kPretrainedInit)
                                                     : init_path_->text().trimmed().toStdString();
    // A preset given with this very checkpoint stays (validate() judges it); any other start
    // takes the checkpoint's shape.
    if (c.init != base_.init) c.model.clear();
  } else {
    c.init.clear();
    c.model = model.mid(static_cast<int>(qstrlen(kRandomPrefix))).toStdString();
    // A random start given without a preset ("" = tiny) reads back as given.
    if (base_.init.empty() && base_.model.empty() && c.model == kDefaultPreset) c.model.clear();
  }
  const bool file = model == QLatin1String(kCheckpointItem);
  // Greyed out for any other start, where they would refuse the launch over fields the user cannot
  // edit (the built-in checkpoint has its own tokenizer and nothing to stretch).
  c.vocab = file ? vocab_->text().trimmed().toStdString() : std::string();
  c.long_clip = file && long_clip_->isChecked();
  // Only a file start has an activation to state (the pretrained checkpoint records its own).
  c.init_activation = file ? activation_->currentData().toString().toStdString() : std::string();
  hnclip::from_string(peft_->currentData().toString().toStdString(), c.peft);
  c.peft_rank = peft_rank_->value();
  c.peft_alpha = given_.value(peft_alpha_, peft_alpha_->value());
  c.peft_towers = peft_towers_->currentText().toStdString();
  // Greyed out without adapters: a run would record a rank and α it never reads (`hnclip train`
  // refuses them as flags without effect). The fields keep their values for when adapters return.
  if (c.peft == hnclip::PeftMethod::kNone) {
    const hnclip::TrainConfig defaults;
    c.peft_rank = defaults.peft_rank;
    c.peft_alpha = defaults.peft_alpha;
    c.peft_towers = defaults.peft_towers;
  }
  c.loss_gamma = given_.value(gamma_, gamma_->value());
  // Greyed out at γ = 0, where plain InfoNCE uses no Ḡ: a run kept as "frozen" there would read
  // as a control it is not (a sweep's γ = 0 cells are recomputed for the same reason).
  c.loss_gbar = c.loss_gamma > 0 && gbar_frozen_->isChecked() ? hnclip::GbarMode::kFrozen
                                                              : hnclip::GbarMode::kRecomputed;
  c.loss_token_weight = given_.value(token_weight_, token_weight_->value());
  c.logit_scale = given_.value(logit_scale_, logit_scale_->value());
  c.fixed_scale = fixed_scale_->isChecked();
  c.epochs = epochs_->value();
  c.batch_size = batch_->value();
  bool ok = false;
  const double lr = lr_->text().trimmed().toDouble(&ok);
  c.lr = ok ? given_.value(lr_, lr) : std::nan("");
  c.seed = seed_->seed().value_or(0);  // none is refused by revalidate()
  c.probe_every = probe_every_->value();
  hnclip::from_string(device_->currentData().toString().toStdString(), c.device);
  c.name = name_->text().trimmed().toStdString();
  advanced_->read(c);
  // Greyed out for a checkpoint start, whose tokenizer has its own context: it sizes the word
  // tokenizer of a run from scratch only.
  if (!model.startsWith(QLatin1String(kRandomPrefix)))
    c.context_length = hnclip::TrainConfig{}.context_length;
  return c;
}

void TrainConfigForm::setConfig(const hnclip::TrainConfig& c) {
  updating_ = true;
  base_ = c;
  given_.clear();
  const auto set_given = [this](QDoubleSpinBox* spin, double v) {
    spin->setValue(v);
    given_.remember(spin, v, spin->value());
  };
  benchmark_->setCurrentText(QString::fromStdString(c.benchmark));
  benchmark_size_->setCurrentText(QString::fromStdString(hnclip::to_string(c.benchmark_size)));
  data_seed_->setSeed(c.data_seed);
  data_root_->setText(QString::fromStdString(c.benchmark_root));
  set_given(data_fraction_, c.data_fraction);
  if (c.init == "pretrained") {
    model_->setCurrentIndex(model_->findData(QString::fromLatin1(kPretrainedItem)));
  } else if (!c.init.empty()) {
    model_->setCurrentIndex(model_->findData(QString::fromLatin1(kCheckpointItem)));
    init_path_->setText(QString::fromStdString(c.init));
  } else {
    const int i = model_->findData(QString::fromLatin1(kRandomPrefix) +
                                   QString::fromStdString(c.model.empty() ? "tiny" : c.model));
    model_->setCurrentIndex(
        i >= 0 ? i : model_->findData(QString::fromLatin1(kRandomPrefix) + QStringLiteral("tiny")));
  }
  vocab_->setText(QString::fromStdString(c.vocab));
  long_clip_->setChecked(c.long_clip);
  const int activation = activation_->findData(QString::fromStdString(c.init_activation));
  activation_->setCurrentIndex(activation >= 0 ? activation : 0);
  const int peft = peft_->findData(QString::fromStdString(hnclip::to_string(c.peft)));
  peft_->setCurrentIndex(peft >= 0 ? peft : 0);
  peft_rank_->setValue(static_cast<int>(c.peft_rank));
  set_given(peft_alpha_, c.peft_alpha);
  peft_towers_->setCurrentText(QString::fromStdString(c.peft_towers));
  set_given(gamma_, c.loss_gamma);
  (c.loss_gbar == hnclip::GbarMode::kFrozen ? gbar_frozen_ : gbar_recomputed_)->setChecked(true);
  set_given(token_weight_, c.loss_token_weight);
  set_given(logit_scale_, c.logit_scale);
  fixed_scale_->setChecked(c.fixed_scale);
  epochs_->setValue(c.epochs);
  batch_->setValue(static_cast<int>(c.batch_size));
  lr_->setText(QString::number(c.lr, 'g', 6));
  given_.remember(lr_, c.lr, lr_->text().toDouble());
  seed_->setSeed(c.seed);
  probe_every_->setValue(c.probe_every);
  int d = device_->findData(QString::fromStdString(hnclip::to_string(c.device)));
  // A CUDA device this machine lacks (a run copied from a GPU server) selects the greyed-out
  // CUDA entry, so the form says why it cannot start instead of silently switching device.
  if (d < 0 && c.device.kind == hnclip::DeviceKind::kCuda)
    d = device_->findData(QStringLiteral("cuda"));
  device_->setCurrentIndex(d >= 0 ? d : 0);
  name_->setText(QString::fromStdString(c.name));
  advanced_->write(c);
  updating_ = false;
  revalidate();
}

void TrainConfigForm::setBenchmarkSummary(const QString& text) {
  benchmark_summary_->setText(text);
}

QString TrainConfigForm::fieldMessage(const QString& flag) const {
  const auto it = messages_.find(flag);
  return it == messages_.end() || it->second->isHidden() ? QString() : it->second->text();
}

void TrainConfigForm::updateEnabledFields() {
  const bool synthetic = benchmark_->currentText() == QStringLiteral("synthetic");
  benchmark_size_->setEnabled(synthetic);
  data_seed_->setEnabled(synthetic);
  data_root_->setEnabled(!synthetic);
  data_root_browse_->setEnabled(!synthetic);
  const bool file = model_->currentData().toString() == QLatin1String(kCheckpointItem);
  init_path_->setEnabled(file);
  init_browse_->setEnabled(file);
  vocab_->setEnabled(file);
  vocab_browse_->setEnabled(file);
  long_clip_->setEnabled(file);
  activation_->setEnabled(file);
  const bool adapters = peft_->currentData().toString() != QStringLiteral("none");
  peft_rank_->setEnabled(adapters);
  peft_alpha_->setEnabled(adapters);
  peft_towers_->setEnabled(adapters);
  advanced_->setWordTokenizerBuilt(
      model_->currentData().toString().startsWith(QLatin1String(kRandomPrefix)));
  // Ḡ only matters when there are margins.
  gbar_recomputed_->setEnabled(gamma_->value() > 0);
  gbar_frozen_->setEnabled(gamma_->value() > 0);
}

void TrainConfigForm::revalidate() {
  if (updating_) return;
  updateEnabledFields();
  const auto c = config();
  QString flag, message;
  bool lr_is_number = false;
  lr_->text().trimmed().toDouble(&lr_is_number);
  if (!lr_is_number) {  // said before the core's "--lr must be finite and > 0", which would hide
                        // the cause
    flag = QStringLiteral("--lr");
    message = tr("--lr: '%1' is not a number (write e.g. 5e-5)").arg(lr_->text().trimmed());
  }
  for (const auto& [edit, seed_flag] :
       {std::pair<const SeedEdit*, QString>{seed_, QStringLiteral("--seed")},
        {data_seed_, QStringLiteral("--data-seed")}}) {
    if (message.isEmpty() && edit->isEnabled() && !edit->seed()) {
      flag = seed_flag;
      message = tr("%1 must be a whole number from 0 to 18446744073709551615 (got '%2')")
                    .arg(seed_flag, edit->text().trimmed());
    }
  }
  if (message.isEmpty()) {
    try {
      c.validate();
    } catch (const hnclip::ConfigError& e) {
      message = QString::fromStdString(e.what());
      flag = flag_of(message);
    }
  }
  if (message.isEmpty()) {
    // Said here, before Start: the core refuses it only when the run is created.
    const std::string control = hnclip::control_character_in(c.name);
    if (!control.empty()) {
      flag = QStringLiteral("--name");
      message = tr("--name must be one line without control characters (it has %1)")
                    .arg(QString::fromStdString(control));
    }
  }
  if (message.isEmpty() && c.benchmark != "synthetic") {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (c.benchmark_root.empty()) {
      flag = QStringLiteral("--data-root");
      message = tr("--data-root: choose the %1 data set's location")
                    .arg(QString::fromStdString(c.benchmark));
    } else if (!fs::exists(c.benchmark_root, ec)) {
      flag = QStringLiteral("--data-root");
      message = tr("--data-root: %1 does not exist").arg(QString::fromStdString(c.benchmark_root));
    }
  }
  if (message.isEmpty() && c.init != "pretrained" && !c.init.empty()) {
    std::error_code ec;
    // A file of any kind, or a Hugging Face / open_clip folder (the core recognises it by content).
    if (!std::filesystem::is_regular_file(c.init, ec) && !std::filesystem::is_directory(c.init, ec)) {
      flag = QStringLiteral("--init");
      message = tr("--init: %1 is neither a file nor a folder").arg(QString::fromStdString(c.init));
    }
  } else if (message.isEmpty() &&
             model_->currentData().toString() == QLatin1String(kCheckpointItem)) {
    flag = QStringLiteral("--init");
    message = tr("--init: choose a checkpoint file");
  }
  if (message.isEmpty() && !c.vocab.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(c.vocab, ec)) {
      flag = QStringLiteral("--vocab");
      message = tr("--vocab: %1 is not a file").arg(QString::fromStdString(c.vocab));
    }
  }
  if (message.isEmpty() && c.device.kind == hnclip::DeviceKind::kCuda) {
    const std::string device = hnclip::to_string(c.device);
    bool present = false;
    for (const auto& d : devices_)
      present |= d == device || (device == "cuda" && d.rfind("cuda", 0) == 0);
    if (!present) {
      flag = QStringLiteral("--device");
      message =
          tr("--device: %1 is not available on this machine").arg(QString::fromStdString(device));
    }
  }
  if (flag == QLatin1String("--peft-rank") || flag == QLatin1String("--alpha") ||
      flag == QLatin1String("--peft-towers"))
    flag = QStringLiteral("--peft");  // the adapter row's label
  for (auto& [f, label] : messages_) label->setVisible(false);
  if (!message.isEmpty()) {
    auto it = messages_.find(flag);
    QLabel* label = it != messages_.end() ? it->second : messages_[QStringLiteral("general")];
    label->setText(message);
    label->setVisible(true);
  }
  const bool was_valid = problem_.isEmpty();
  problem_ = message;
  updateAdvancedTitle();
  if (was_valid != problem_.isEmpty()) emit validityChanged(problem_.isEmpty());
  emit changed();
}

}  // namespace hnclip::gui

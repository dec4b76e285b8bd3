#include "widgets/experiments/new_experiment_dialog.h"

#include <cmath>
#include <sstream>
#include <type_traits>

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <nlohmann/json.hpp>

#include "experiment/experiment_presets.h"
#include "store/store_error.h"
#include "widgets/common/run_table_model.h"
#include "widgets/experiments/experiment_spec_json.h"

namespace hnclip::gui {
namespace {

constexpr int kPreviewDelayMs = 250;  // typing settles before the store is asked again
constexpr int kMaxParallel = 64;      // as the CLI's --parallel
constexpr int kMsPerSecond = 1000;

QString qs(const std::string& s) { return QString::fromStdString(s); }

// "1, 2,3" -> values; a word that is not one names the field.
template <typename T>
std::vector<T> number_list(const QString& text, const std::string& field) {
  std::vector<T> out;
  for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
    const std::string word = part.trimmed().toStdString();
    std::istringstream in(word);
    T v{};
    char rest = 0;
    if (word.empty() || word[0] == '-' || !(in >> v) || (in >> rest))
      throw ConfigError(field + ": '" + word + "' is not a " +
                        (std::is_integral_v<T> ? "non-negative integer" : "number"));
    out.push_back(v);
  }
  if (out.empty()) throw ConfigError(field + ": no values");
  return out;
}

QString values_text(const std::vector<nlohmann::json>& values) {
  QStringList parts;
  for (const auto& v : values) parts << qs(v.is_string() ? v.get<std::string>() : v.dump());
  return parts.join(QStringLiteral(", "));
}

}  // namespace

NewExperimentDialog::NewExperimentDialog(QString db_path,
                                         std::function<hnclip::TrainConfig()> form_config,
                                         QWidget* parent)
    : QDialog(parent), db_path_(std::move(db_path)), form_config_(std::move(form_config)) {
  setWindowTitle(tr("New experiment"));
  setObjectName(QStringLiteral("newExperimentDialog"));
  debounce_ = new QTimer(this);
  debounce_->setSingleShot(true);
  debounce_->setInterval(kPreviewDelayMs);
  connect(debounce_, &QTimer::timeout, this, &NewExperimentDialog::startPreview);
  watcher_ = new QFutureWatcher<ExperimentPreview>(this);
  connect(watcher_, &QFutureWatcherBase::finished, this, &NewExperimentDialog::showPreview);
  buildLayout();
  fillAxesFromPreset();
  schedulePreview();
}

NewExperimentDialog::~NewExperimentDialog() {
  watcher_->disconnect(this);
  watcher_->waitForFinished();
}

void NewExperimentDialog::buildLayout() {
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  layout->addLayout(form);

  preset_ = new QComboBox(this);
  preset_->setObjectName(QStringLiteral("preset"));
  for (const auto& name : experiment_preset_names())
    preset_->addItem(tr("Preset: %1").arg(qs(name)), qs(name));
  preset_->addItem(tr("Axes of my own"), QString());
  preset_->setToolTip(
      tr("gamma-sweep: γ 0…1 at s 100 · gamma-scale: γ × fixed s · gbar: "
         "recomputed vs frozen Ḡ · sample-efficiency: 5/20/50/100 % of the data"));
  form->addRow(tr("Experiment:"), preset_);
  name_ = new QLineEdit(this);
  name_->setObjectName(QStringLiteral("name"));
  form->addRow(tr("Name:"), name_);

  base_ = new QComboBox(this);
  base_->setObjectName(QStringLiteral("base"));
  base_->addItem(tr("the presets' recipe (built-in benchmark, lr 1e-3, 10 epochs)"));
  if (form_config_) base_->addItem(tr("the Train tab's configuration"));
  form->addRow(tr("Base configuration:"), base_);
  base_changes_ = new QLineEdit(this);
  base_changes_->setObjectName(QStringLiteral("baseChanges"));
  base_changes_->setPlaceholderText(QStringLiteral(R"({"benchmark_size": "small", "epochs": 1})"));
  base_changes_->setToolTip(tr("Run config keys set over the base, as a JSON object"));
  form->addRow(tr("Changes to the base:"), base_changes_);

  axes_ = new QTableWidget(0, 2, this);
  axes_->setObjectName(QStringLiteral("axes"));
  axes_->setHorizontalHeaderLabels({tr("Config key"), tr("Values (comma-separated)")});
  axes_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  axes_->horizontalHeader()->setStretchLastSection(true);
  axes_->verticalHeader()->setVisible(false);
  axes_->setMinimumHeight(110);
  auto* axis_buttons = new QHBoxLayout;
  auto* add = new QPushButton(tr("Add axis"), this);
  auto* remove = new QPushButton(tr("Remove axis"), this);
  axis_buttons->addWidget(add);
  axis_buttons->addWidget(remove);
  axis_buttons->addStretch(1);
  auto* axes_box = new QVBoxLayout;
  axes_box->addWidget(axes_);
  axes_box->addLayout(axis_buttons);
  form->addRow(tr("Axes (their product is the grid):"), axes_box);

  seeds_ = new QLineEdit(QStringLiteral("1, 2, 3"), this);
  seeds_->setObjectName(QStringLiteral("seeds"));
  form->addRow(tr("Seeds:"), seeds_);

  controls_ = new QCheckBox(tr("Add the controls: for every γ > 0, plain InfoNCE with everything "
                               "else equal, with a learnt scale, and at fixed scales"),
                            this);
  controls_->setObjectName(QStringLiteral("controls"));
  controls_->setChecked(true);
  form->addRow(tr("Controls:"), controls_);
  control_scales_ = new QLineEdit(QStringLiteral("10, 20, 50, 100"), this);
  control_scales_->setObjectName(QStringLiteral("controlScales"));
  form->addRow(tr("Fixed scales of the controls:"), control_scales_);
  controls_caveat_ = new QLabel(
      tr("Without controls a margin's gain cannot be told from what a temperature alone does; "
         "every table of this experiment will say it has none (--no-controls)."),
      this);
  controls_caveat_->setObjectName(QStringLiteral("controlsCaveat"));
  controls_caveat_->setWordWrap(true);
  controls_caveat_->setVisible(false);
  form->addRow(QString(), controls_caveat_);

  parallel_ = new QSpinBox(this);
  parallel_->setObjectName(QStringLiteral("parallel"));
  parallel_->setRange(1, kMaxParallel);
  parallel_->setValue(hnclip::ExperimentSpec{}.parallel);
  parallel_->setToolTip(
      tr("Runs at a time, the threads split between them (2 × 1 thread "
         "finished two runs 1.9× sooner than 1 × 2 on a 2-core machine)"));
  form->addRow(tr("Runs at a time:"), parallel_);
  selection_ = new QComboBox(this);
  selection_->setObjectName(QStringLiteral("selection"));
  selection_->addItem(tr("auto (validation split when there is one, else last epoch)"),
                      QString::fromLatin1(kSelectAuto));
  selection_->addItem(tr("best epoch on validation"), QString::fromLatin1(kSelectVal));
  selection_->addItem(tr("last epoch"), QString::fromLatin1(kSelectLast));
  selection_->addItem(tr("best epoch on test — optimistic"), QString::fromLatin1(kSelectTest));
  form->addRow(tr("Epoch selection:"), selection_);

  confirm_ = new QCheckBox(tr("Start more than %1 runs").arg(kMaxRunsWithoutConfirmation), this);
  confirm_->setObjectName(QStringLiteral("confirm"));
  confirm_->setVisible(false);
  layout->addWidget(confirm_);
  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("summary"));
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(summary_);
  error_ = new QLabel(this);
  error_->setObjectName(QStringLiteral("error"));
  error_->setWordWrap(true);
  error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(error_);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
  start_ = buttons->addButton(tr("Start"), QDialogButtonBox::AcceptRole);
  start_->setObjectName(QStringLiteral("start"));
  start_->setEnabled(false);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);

  connect(preset_, &QComboBox::currentIndexChanged, this, [this] {
    fillAxesFromPreset();
    schedulePreview();
  });
  connect(add, &QPushButton::clicked, this, [this] {
    addAxisRow(QStringLiteral("loss_gamma"), QString());
    schedulePreview();
  });
  connect(remove, &QPushButton::clicked, this, [this] {
    const int row = axes_->currentRow();
    axes_->removeRow(row >= 0 ? row : axes_->rowCount() - 1);
    schedulePreview();
  });
  connect(axes_, &QTableWidget::itemChanged, this, &NewExperimentDialog::schedulePreview);
  connect(controls_, &QCheckBox::toggled, this, [this](bool on) {
    controls_caveat_->setVisible(!on);
    control_scales_->setEnabled(on);
    schedulePreview();
  });
  for (QLineEdit* edit : {name_, base_changes_, seeds_, control_scales_})
    connect(edit, &QLineEdit::textChanged, this, &NewExperimentDialog::schedulePreview);
  for (QComboBox* box : {base_, selection_})
    connect(box, &QComboBox::currentIndexChanged, this, &NewExperimentDialog::schedulePreview);
  connect(parallel_, &QSpinBox::valueChanged, this, &NewExperimentDialog::schedulePreview);
  connect(confirm_, &QCheckBox::toggled, this, &NewExperimentDialog::schedulePreview);
}

void NewExperimentDialog::fillAxesFromPreset() {
  const QString preset = preset_->currentData().toString();
  if (preset.isEmpty()) {
    if (axes_->rowCount() == 0) addAxisRow(QStringLiteral("loss_gamma"), QStringLiteral("0, 0.5"));
    if (form_config_) base_->setCurrentIndex(1);
    return;
  }
  const ExperimentSpec spec = experiment_preset(preset.toStdString());
  axes_->setRowCount(0);
  for (const auto& axis : spec.axes) addAxisRow(qs(axis.key), values_text(axis.values));
  name_->setText(preset);
  base_->setCurrentIndex(0);
}

void NewExperimentDialog::addAxisRow(const QString& key, const QString& values) {
  const QSignalBlocker block(axes_);
  const int row = axes_->rowCount();
  axes_->insertRow(row);
  auto* keys = new QComboBox(axes_);
  for (const auto& k : experiment_axis_keys()) keys->addItem(qs(k));
  keys->setCurrentText(key);
  connect(keys, &QComboBox::currentIndexChanged, this, &NewExperimentDialog::schedulePreview);
  axes_->setCellWidget(row, 0, keys);
  axes_->setItem(row, 1, new QTableWidgetItem(values));
}

hnclip::ExperimentSpec NewExperimentDialog::spec() const {
  ExperimentSpec s;
  const std::string preset = preset_->currentData().toString().toStdString();
  s.preset = preset;
  s.name = name_->text().trimmed().toStdString();
  if (s.name.empty()) s.name = preset.empty() ? "experiment" : preset;
  nlohmann::json base = base_->currentIndex() == 1 && form_config_
                            ? nlohmann::json(form_config_())
                            : nlohmann::json(experiment_preset_recipe());
  const QString changes = base_changes_->text().trimmed();
  if (!changes.isEmpty()) {
    const auto j = nlohmann::json::parse(changes.toStdString(), nullptr, false);
    if (j.is_discarded() || !j.is_object())
      throw ConfigError("changes to the base: not a JSON object of run config keys");
    for (const auto& [k, v] : j.items()) base[k] = v;
  }
  s.base = base;
  for (int row = 0; row < axes_->rowCount(); ++row) {
    const auto* keys = qobject_cast<const QComboBox*>(axes_->cellWidget(row, 0));
    const auto* values = axes_->item(row, 1);
    const QString key = keys ? keys->currentText() : QString();
    const QString text = values ? values->text().trimmed() : QString();
    if (text.isEmpty()) throw ConfigError("axis " + key.toStdString() + ": no values");
    QStringList words;  // "0, 0.5" as the core's --set syntax: "0,0.5"
    for (const QString& v : text.split(QLatin1Char(','))) words << v.trimmed();
    s.axes.push_back(
        parse_axis((key + QLatin1Char('=') + words.join(QLatin1Char(','))).toStdString()));
  }
  s.seeds = number_list<uint64_t>(seeds_->text(), "seeds");
  s.controls = controls_->isChecked();
  if (s.controls) s.control_scales = number_list<double>(control_scales_->text(), "fixed scales");
  s.parallel = parallel_->value();
  s.selection = selection_->currentData().toString().toStdString();
  settle_experiment_base(s);
  return s;
}

bool NewExperimentDialog::confirmed() const { return confirm_->isChecked(); }

QString NewExperimentDialog::problem() const {
  if (!spec_error_.isEmpty()) return spec_error_;
  if (!preview_current_) return tr("counting the runs…");
  if (preview_.needs_confirmation && !confirmed())
    return tr("%1 — tick \"Start more than %2 runs\" to start it anyway")
        .arg(qs(preview_.error))
        .arg(kMaxRunsWithoutConfirmation);
  if (!preview_.error.empty() && !preview_.needs_confirmation) return qs(preview_.error);
  return {};
}

void NewExperimentDialog::choosePreset(const QString& preset) {
  const int at = preset_->findData(preset);
  if (at >= 0) preset_->setCurrentIndex(at);
}
void NewExperimentDialog::setBaseChanges(const QString& json) { base_changes_->setText(json); }
void NewExperimentDialog::setSeeds(const QString& seeds) { seeds_->setText(seeds); }
void NewExperimentDialog::setControls(bool on) { controls_->setChecked(on); }
void NewExperimentDialog::setAxis(int row, const QString& key, const QString& values) {
  while (axes_->rowCount() <= row) addAxisRow(key, QString());
  if (auto* keys = qobject_cast<QComboBox*>(axes_->cellWidget(row, 0))) keys->setCurrentText(key);
  axes_->item(row, 1)->setText(values);
  schedulePreview();
}

void NewExperimentDialog::schedulePreview() {
  preview_current_ = false;
  start_->setEnabled(false);
  debounce_->start();
}

void NewExperimentDialog::startPreview() {
  if (watcher_->isRunning()) {
    preview_pending_ = true;
    return;
  }
  spec_error_.clear();
  ExperimentSpec s;
  try {
    s = spec();
  } catch (const std::exception& e) {
    spec_error_ = qs(e.what());
    error_->setText(spec_error_);
    summary_->clear();
    confirm_->setVisible(false);
    emit previewReady();
    return;
  }
  error_->setText(tr("counting the runs…"));
  const bool confirmed = confirm_->isChecked();
  const std::string db = db_path_.toStdString();
  watcher_->setFuture(QtConcurrent::run([s, confirmed, db] {
    try {
      return preview_experiment(s, confirmed, db);
    } catch (const std::exception& e) {
      ExperimentPreview p;
      p.error = e.what();
      return p;
    }
  }));
}

void NewExperimentDialog::showPreview() {
  if (preview_pending_) {
    preview_pending_ = false;
    startPreview();
    return;
  }
  preview_ = watcher_->result();
  preview_current_ = !debounce_->isActive();
  confirm_->setVisible(preview_.needs_confirmation);
  if (preview_.runs > 0) {
    QString text = tr("%1 configurations × %2 seeds = <b>%3 runs</b>; %4 filled by finished runs "
                      "of the same configuration, %5 to train. Epoch selection: %6.")
                       .arg(preview_.cells)
                       .arg(preview_.seeds)
                       .arg(preview_.runs)
                       .arg(preview_.reused)
                       .arg(preview_.runs - preview_.reused)
                       .arg(qs(preview_.selection));
    if (!std::isnan(preview_.estimated_seconds)) {
      text += QStringLiteral("<br>") +
              tr("Estimated time: <b>≈ %1</b>, one run after another at the speed measured on %2 "
                 "finished runs of this benchmark and model (%3 ms per training image, "
                 "evaluation included); runs at a time may shorten it.")
                  .arg(format_duration_ms(
                      static_cast<int64_t>(preview_.estimated_seconds * kMsPerSecond)))
                  .arg(preview_.measured_runs)
                  .arg(preview_.seconds_per_image * kMsPerSecond, 0, 'f', 2);
    } else {
      text += QStringLiteral("<br>") +
              tr("Estimated time: no estimate — no finished run of this benchmark and model in "
                 "the store to measure the speed on.");
    }
    summary_->setText(text);
  } else {
    summary_->clear();
  }
  const QString why = problem();
  error_->setText(why);
  start_->setEnabled(preview_current_ && why.isEmpty());
  emit previewReady();
}

}  // namespace hnclip::gui

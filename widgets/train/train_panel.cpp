#include "widgets/train/train_panel.h"

#include <QCoreApplication>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QVBoxLayout>

#include <QtConcurrent/QtConcurrentRun>

#include <nlohmann/json.hpp>

#include "train/builtin_recipe.h"

#include "widgets/common/run_label.h"
#include "widgets/train/benchmark_row_text.h"
#include "widgets/train/run_history.h"
#include "widgets/train/train_config_form.h"
#include "widgets/train/training_plots_panel.h"

namespace hnclip::gui {
namespace {

constexpr int kStepsBeforeEta = 5;   // an ETA from fewer steps jumps around too much to show
constexpr int kMaxLogBlocks = 2000;  // the log view keeps the latest lines only
constexpr int kRowDebounceMs = 400;
constexpr int kScrollBarAllowance = 20;  // the form scrolls vertically, never horizontally
constexpr int kFormInitialWidth = 380;
constexpr int kPlotsInitialWidth = 1000;  // wait for typing in the data-root field to settle

QString duration_text(double seconds) {
  const auto s = static_cast<qint64>(seconds + 0.5);
  if (s >= 3600)
    return QStringLiteral("%1:%2:%3")
        .arg(s / 3600)
        .arg((s / 60) % 60, 2, 10, QLatin1Char('0'))
        .arg(s % 60, 2, 10, QLatin1Char('0'));
  return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

}  // namespace

TrainPanel::TrainPanel(QString database, QString cache_dir, const std::vector<std::string>& devices,
                       QWidget* parent)
    : QWidget(parent),
      database_(std::move(database)),
      cache_dir_(std::move(cache_dir)),
      rank_program_(QCoreApplication::applicationDirPath() + QStringLiteral("/hnclip")) {
  auto* outer = new QHBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  splitter_ = new QSplitter(Qt::Horizontal, this);
  splitter_->setObjectName(QStringLiteral("trainSplitter"));
  outer->addWidget(splitter_);

  form_ = new TrainConfigForm(devices);
  auto* scroll = new QScrollArea(splitter_);
  scroll->setWidget(form_);
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setMinimumWidth(form_->sizeHint().width() + kScrollBarAllowance);
  splitter_->addWidget(scroll);

  auto* right = new QWidget(splitter_);
  auto* rl = new QVBoxLayout(right);
  auto* controls = new QHBoxLayout;
  start_ = new QPushButton(tr("Start"), right);
  start_->setToolTip(tr("Start training (Ctrl+R)"));
  pause_ = new QPushButton(tr("Pause"), right);
  stop_ = new QPushButton(tr("Stop"), right);
  stop_->setToolTip(tr("Stop after the current step (Ctrl+.)"));
  controls->addWidget(start_);
  controls->addWidget(pause_);
  controls->addWidget(stop_);
  progress_ = new QProgressBar(right);
  progress_->setTextVisible(true);
  controls->addWidget(progress_, 1);
  rl->addLayout(controls);
  auto* status_row = new QHBoxLayout;
  progress_text_ = new QLabel(right);
  progress_text_->setObjectName(QStringLiteral("progressText"));
  state_text_ = new QLabel(right);
  status_row->addWidget(progress_text_, 1);
  status_row->addWidget(state_text_);
  rl->addLayout(status_row);
  // Why Start is off, where the eye goes when it does not press: the form's message may sit
  // scrolled out of view, and a disabled button's tooltip is easy to miss.
  start_problem_ = new QLabel(right);
  start_problem_->setObjectName(QStringLiteral("startProblem"));
  start_problem_->setWordWrap(true);
  start_problem_->setForegroundRole(QPalette::Link);  // as the form's own messages
  start_problem_->setVisible(false);
  rl->addWidget(start_problem_);

  auto* vsplit = new QSplitter(Qt::Vertical, right);
  vsplit->setObjectName(QStringLiteral("trainPlotsLogSplitter"));
  plots_ = new TrainingPlotsPanel(vsplit);
  log_ = new QPlainTextEdit(vsplit);
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(kMaxLogBlocks);
  log_->setPlaceholderText(tr("Training log"));
  vsplit->addWidget(plots_);
  vsplit->addWidget(log_);
  vsplit->setStretchFactor(0, 5);
  vsplit->setStretchFactor(1, 1);
  rl->addWidget(vsplit, 1);
  splitter_->addWidget(right);
  splitter_->setStretchFactor(1, 1);
  // The plots get the room; the main window's saved splitter state overrides this.
  splitter_->setSizes({kFormInitialWidth, kPlotsInitialWidth});

  connect(start_, &QPushButton::clicked, this, &TrainPanel::startRun);
  connect(pause_, &QPushButton::clicked, this, &TrainPanel::togglePause);
  connect(stop_, &QPushButton::clicked, this, &TrainPanel::stopRun);
  // On every edit, not only when validity flips: the shown problem may change while Start is off.
  connect(form_, &TrainConfigForm::changed, this, [this] { onStateChanged(controller_.state()); });

  connect(&controller_, &TrainingController::stateChanged, this, &TrainPanel::onStateChanged);
  connect(&controller_, &TrainingController::stateChanged, this,
          [this](TrainingController::State s) {
            emit trainingStateChanged(s != TrainingController::State::Idle);
          });
  connect(&controller_, &TrainingController::checkpointed, this,
          [this] { emit checkpointed(controller_.runId()); });
  connect(form_, &TrainConfigForm::sameAsRunRequested, this, &TrainPanel::sameAsRunRequested);
  connect(&controller_, &TrainingController::log, this, &TrainPanel::appendLog);
  connect(&controller_, &TrainingController::runCreated, this,
          [this](qint64 id, const hnclip::TrainConfig& c) {
            plots_->setRunLabel(id, run_label(id, c.name));
            val_split_ = c.val_split;
            data_parallel_ = c.world_size > 1;
            onStateChanged(controller_.state());
            appendLog(tr("%1 started").arg(run_choice_label(id, c.name)));
            awaiting_history_ = true;
            loadHistories({id});
            emit runStarted(id);
          });
  connect(&controller_, &TrainingController::step, this, &TrainPanel::onStep);
  connect(&controller_, &TrainingController::probe, this, [this](const hnclip::ProbeEvent& e) {
    if (awaiting_history_) pending_probes_.push_back(e);
    plots_->appendProbe(controller_.runId(), e);
  });
  connect(&controller_, &TrainingController::evaluated, this, [this](const hnclip::EvalEvent& e) {
    if (!val_split_.empty() && e.split == val_split_) {
      // The plots and the epoch signal follow the test split; the validation split is logged.
      appendLog(tr("epoch %1 (%2 split): R@1 t2i %3, i2t %4")
                    .arg(e.epoch)
                    .arg(QString::fromStdString(e.split))
                    .arg(e.t2i.recall_at(1), 0, 'f', 2)
                    .arg(e.i2t.recall_at(1), 0, 'f', 2));
      return;
    }
    if (awaiting_history_) pending_evals_.push_back(e);
    plots_->appendEval(controller_.runId(), e);
    appendLog(tr("epoch %1: R@1 t2i %2, i2t %3")
                  .arg(e.epoch)
                  .arg(e.t2i.recall_at(1), 0, 'f', 2)
                  .arg(e.i2t.recall_at(1), 0, 'f', 2));
    emit epochEvaluated(controller_.runId(), e.epoch);
  });
  connect(&controller_, &TrainingController::finished, this, [this](const hnclip::TrainResult& r) {
    appendLog(tr("run %1 %2%3")
                  .arg(controller_.runId())
                  .arg(QString::fromStdString(r.status))
                  .arg(r.message.empty()
                           ? QString()
                           : QStringLiteral(": ") + QString::fromStdString(r.message)));
    state_text_->setText(QString::fromStdString(r.status));
    emit runEnded(controller_.runId());
  });
  connect(&controller_, &TrainingController::failed, this, [this](const QString& message) {
    appendLog(tr("failed: %1").arg(message));
    state_text_->setText(tr("failed"));
    state_text_->setToolTip(message);
    if (controller_.runId() > 0) emit runEnded(controller_.runId());
  });
  row_timer_ = new QTimer(this);
  row_timer_->setSingleShot(true);
  row_timer_->setInterval(kRowDebounceMs);
  connect(row_timer_, &QTimer::timeout, this, &TrainPanel::computeBenchmarkRow);
  row_watcher_ = new QFutureWatcher<QString>(this);
  connect(row_watcher_, &QFutureWatcherBase::finished, this, [this] {
    form_->setBenchmarkSummary(row_watcher_->result());
    if (row_again_) {
      row_again_ = false;
      computeBenchmarkRow();
    }
  });
  connect(form_, &TrainConfigForm::changed, this, &TrainPanel::scheduleBenchmarkRow);
  // A run generates the built-in benchmark when it is missing: show its row once it exists.
  connect(&controller_, &TrainingController::runCreated, this, [this] {
    row_key_.clear();
    scheduleBenchmarkRow();
  });
  scheduleBenchmarkRow();
  onStateChanged(TrainingController::State::Idle);
}

void TrainPanel::scheduleBenchmarkRow() {
  const auto c = form_->config();
  const QString key =
      QStringLiteral("%1|%2|%3|%4|%5")
          .arg(QString::fromStdString(c.benchmark),
               QString::fromStdString(hnclip::to_string(c.benchmark_size)))
          .arg(c.data_seed)
          .arg(QString::fromStdString(c.benchmark_root), QString::fromStdString(c.test_split));
  if (key == row_key_) return;
  row_key_ = key;
  row_timer_->start();
}

void TrainPanel::computeBenchmarkRow() {
  if (row_watcher_->isRunning()) {
    row_again_ = true;
    return;
  }
  form_->setBenchmarkSummary(tr("Table A1: reading the benchmark…"));
  const auto config = form_->config();
  const std::string cache = cache_dir_.toStdString();
  row_watcher_->setFuture(
      QtConcurrent::run([config, cache] { return benchmark_row_text(config, cache); }));
}

QString TrainPanel::progressText() const { return progress_text_->text(); }

void TrainPanel::startRun() {
  if (controller_.busy() || !form_->isValid() || !store_problem_.isEmpty()) return;
  TrainingRequest request;
  request.config = form_->config();
  start(request);
}

void TrainPanel::resumeRun(qint64 run_id) {
  if (controller_.busy()) return;
  TrainingRequest request;
  request.resume_run_id = run_id;
  start(request);
}

void TrainPanel::start(const TrainingRequest& base) {
  TrainingRequest request = base;
  request.database = database_;
  request.cache_dir = cache_dir_;
  request.rank_program = rank_program_;
  data_parallel_ = false;  // until runCreated says
  first_step_ = -1;
  steps_seen_ = 0;
  awaiting_history_ = false;
  pending_steps_.clear();
  pending_probes_.clear();
  pending_evals_.clear();
  progress_->setValue(0);
  progress_text_->setText(tr("preparing data and model…"));
  state_text_->setToolTip(QString());
  controller_.start(request);
}

void TrainPanel::applyRunHistory(const RunHistory& h) {
  plots_->setRunHistory(h.run_id, QString::fromStdString(h.name), h.steps, h.probes, h.evals);
  if (h.run_id == controller_.runId()) {
    // Steps already stored are re-appended too: the plots drop a run's points from a repeated
    // step on before adding it, so the curve ends up exactly history + live.
    for (const auto& e : pending_steps_) plots_->appendStep(h.run_id, e);
    for (const auto& e : pending_probes_) plots_->appendProbe(h.run_id, e);
    for (const auto& e : pending_evals_) plots_->appendEval(h.run_id, e);
  }
  awaiting_history_ = false;
  pending_steps_.clear();
  pending_probes_.clear();
  pending_evals_.clear();
}

void TrainPanel::stopRun() { controller_.stop(); }

void TrainPanel::togglePause() {
  controller_.setPaused(controller_.state() != TrainingController::State::Paused);
}

void TrainPanel::onStateChanged(TrainingController::State state) {
  using S = TrainingController::State;
  const QString problem = !store_problem_.isEmpty() ? store_problem_ : form_->problem();
  start_->setEnabled(state == S::Idle && problem.isEmpty());
  start_->setToolTip(problem.isEmpty() ? tr("Start training (Ctrl+R)") : problem);
  start_problem_->setText(tr("Start is off: %1").arg(problem));
  start_problem_->setVisible(state == S::Idle && !problem.isEmpty());
  pause_->setEnabled((state == S::Running || state == S::Paused) && !data_parallel_);
  pause_->setToolTip(data_parallel_ ? tr("A data-parallel run cannot pause: its other processes "
                                         "would give up waiting")
                                    : QString());
  pause_->setText(state == S::Paused ? tr("Resume") : tr("Pause"));
  stop_->setEnabled(state != S::Idle && state != S::Stopping);
  form_->setEnabled(state == S::Idle);
  switch (state) {
    case S::Idle:
      break;  // the final status is set by finished/failed
    case S::Preparing:
      state_text_->setText(tr("preparing…"));
      break;
    case S::Running:
      state_text_->setText(tr("running"));
      break;
    case S::Paused:
      state_text_->setText(tr("paused"));
      break;
    case S::Stopping:
      state_text_->setText(tr("stopping…"));
      break;
  }
}

void TrainPanel::onStep(const hnclip::StepEvent& e) {
  if (awaiting_history_) pending_steps_.push_back(e);
  plots_->appendStep(controller_.runId(), e);
  if (first_step_ < 0) {
    first_step_ = e.step;
    first_wall_ = e.wall_time_s;
  }
  ++steps_seen_;
  progress_->setMaximum(static_cast<int>(e.total_steps));
  progress_->setValue(static_cast<int>(e.step));
  QString text = tr("step %1/%2 · epoch %3/%4 · %5 elapsed")
                     .arg(e.step)
                     .arg(e.total_steps)
                     .arg(e.epoch)
                     .arg(e.steps_per_epoch > 0 ? e.total_steps / e.steps_per_epoch : 0)
                     .arg(duration_text(e.wall_time_s));
  if (steps_seen_ > kStepsBeforeEta && e.step > first_step_) {
    const double per_step =
        (e.wall_time_s - first_wall_) / static_cast<double>(e.step - first_step_);
    text +=
        tr(" · ETA %1").arg(duration_text(per_step * static_cast<double>(e.total_steps - e.step)));
  }
  // A data-parallel run: each rank's computing rate and its share of time in collectives.
  QStringList ranks;
  for (const auto& r : e.ranks) {
    ranks << tr("rank %1: %2 img/s, %3% in collectives")
                 .arg(r.rank)
                 .arg(r.images_per_second, 0, 'f', 0)
                 .arg(100 * r.collective_fraction, 0, 'f', 0);
  }
  if (!ranks.isEmpty()) text += QStringLiteral("\n") + ranks.join(QStringLiteral(" · "));
  progress_text_->setText(text);
}

void TrainPanel::appendLog(const QString& line) { log_->appendPlainText(line); }

// ---------------------------------------------------------------- the window's requests

namespace {
// A stored or typed run configuration; missing keys keep their defaults.
// Keys the JSON does not give keep *out's values (from_json reads only the keys present).
bool parse_config(const QString& json, hnclip::TrainConfig* out, QString* error) {
  try {
    from_json(nlohmann::json::parse(json.toStdString()), *out);
    return true;
  } catch (const std::exception& e) {
    *error = QString::fromStdString(e.what());
    return false;
  }
}
}  // namespace

hnclip::TrainConfig TrainPanel::currentConfig() const { return form_->config(); }

void TrainPanel::setConfig(const hnclip::TrainConfig& config) { form_->setConfig(config); }

bool TrainPanel::setConfigJson(const QString& json, QString* error) {
  // Keys not given keep the form's own defaults, the built-in fine-tuning recipe; a key that is
  // none is refused rather than dropped.
  try {
    form_->setConfig(
        hnclip::typed_train_config(json.toStdString(), hnclip::builtin_finetune_recipe()));
    return true;
  } catch (const std::exception& e) {
    *error = QString::fromStdString(e.what());
    return false;
  }
}

bool TrainPanel::isTraining() { return controller_.busy(); }

QString TrainPanel::configProblem() const { return form_->problem(); }

void TrainPanel::setStoreProblem(const QString& problem) {
  if (problem == store_problem_) return;
  store_problem_ = problem;
  onStateChanged(controller_.state());
}

qint64 TrainPanel::trainingRunId() { return controller_.runId(); }

QString TrainPanel::exportInteractive() {
  bool ok = false;
  const QString chart = QInputDialog::getItem(this, tr("Export plot"), tr("Chart:"),
                                              plots_->chartNames(), 0, false, &ok);
  if (!ok) return {};
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export %1").arg(chart), chart + QStringLiteral(".png"),
                                   tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf);;CSV data (*.csv)"));
  if (path.isEmpty()) return {};
  QString error;
  const bool done = path.endsWith(QStringLiteral(".csv"), Qt::CaseInsensitive)
                        ? plots_->exportCsv(chart, path, &error)
                        : plots_->exportChart(chart, path, &error);
  if (!done) {
    QMessageBox::warning(this, tr("Export"), error);
    return {};
  }
  return tr("Saved %1").arg(path);
}

void TrainPanel::saveState(QSettings& s) const {
  s.setValue(QStringLiteral("train/splitter"), splitter_->saveState());
  s.setValue(QStringLiteral("train/plotOptions"), plots_->options());
  const nlohmann::json config = form_->config();
  s.setValue(QStringLiteral("train/lastConfig"), QString::fromStdString(config.dump()));
}

void TrainPanel::restoreState(QSettings& s) {
  splitter_->restoreState(s.value(QStringLiteral("train/splitter")).toByteArray());
  plots_->setOptions(s.value(QStringLiteral("train/plotOptions")).toMap());
  const QString config_json = s.value(QStringLiteral("train/lastConfig")).toString();
  hnclip::TrainConfig config;
  QString error;
  if (!config_json.isEmpty() && parse_config(config_json, &config, &error))
    form_->setConfig(config);
}

void TrainPanel::loadHistories(const QList<int64_t>& runs) {
  if (runs.isEmpty()) return;
  const std::string db = database_.toStdString();
  const std::vector<int64_t> ids(runs.begin(), runs.end());
  auto* watcher = new QFutureWatcher<std::vector<RunHistory>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
    watcher->deleteLater();
    std::vector<RunHistory> histories;
    try {
      histories = watcher->result();
    } catch (const std::exception& e) {
      emit statusMessage(tr("Could not read runs: %1").arg(QString::fromStdString(e.what())));
      return;
    }
    for (const auto& h : histories) {
      const bool live = controller_.busy() && h.run_id == controller_.runId();
      if (!live && !shown_runs_.contains(h.run_id)) continue;  // deselected meanwhile
      if (live)
        applyRunHistory(h);
      else
        plots_->setRunHistory(h.run_id, QString::fromStdString(h.name), h.steps, h.probes, h.evals);
    }
  });
  watcher->setFuture(QtConcurrent::run([db, ids] { return load_run_histories(db, ids); }));
}

void TrainPanel::showStoredRuns(const QList<int64_t>& runs) {
  const qint64 live = controller_.busy() ? controller_.runId() : 0;
  for (const int64_t id : plots_->runs()) {
    if (id != live && !runs.contains(id)) plots_->removeRun(id);
  }
  QList<int64_t> to_load;
  for (const int64_t id : runs) {
    if (id != live && !plots_->runs().contains(id)) to_load << id;
  }
  shown_runs_ = runs;
  loadHistories(to_load);
}

void TrainPanel::copyConfigOfRun(qint64 run_id) {
  const std::string db = database_.toStdString();
  auto* watcher = new QFutureWatcher<std::vector<RunHistory>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, run_id] {
    watcher->deleteLater();
    std::vector<RunHistory> h;
    try {
      h = watcher->result();
    } catch (const std::exception& e) {
      emit statusMessage(QString::fromStdString(e.what()));
      return;
    }
    if (h.empty()) return;
    hnclip::TrainConfig config;
    QString error;
    if (!parse_config(QString::fromStdString(h.front().config_json), &config, &error)) {
      QMessageBox::warning(this, tr("Same as run"),
                           tr("Run %1's configuration cannot be read: %2").arg(run_id).arg(error));
      return;
    }
    config.name.clear();  // a new run gets its own name
    form_->setConfig(config);
    emit configCopied(run_id);
    emit statusMessage(tr("Configuration copied from run %1").arg(run_id));
  });
  watcher->setFuture(QtConcurrent::run([db, run_id] { return load_run_histories(db, {run_id}); }));
}

}  // namespace hnclip::gui

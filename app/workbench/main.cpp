// hnclip-workbench: the desktop front end of HN-CLIP Workbench. Thin: parses the command line,
// applies the palette, and shows the MainWindow.

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QPalette>
#include <QStyleFactory>

#include <csignal>
#include <string>

#include <nlohmann/json.hpp>

#include "job/settings_without_effect.h"
#include "job/workbench_paths.h"
#include "main_window.h"
#include "scripted_session.h"
#include "train/builtin_recipe.h"
#include "train/train_config.h"

namespace {

// A dark palette for checking custom painting in dark mode on machines whose desktop has none.
QPalette dark_palette() {
  QPalette p;
  const QColor window(45, 45, 48), base(30, 30, 32), text(225, 225, 225), disabled(128, 128, 128);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, window);
  p.setColor(QPalette::ToolTipBase, window);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::Highlight, QColor(42, 130, 218));
  p.setColor(QPalette::HighlightedText, Qt::black);
  p.setColor(QPalette::Link, QColor(255, 140, 120));
  p.setColor(QPalette::Mid, QColor(80, 80, 84));
  // Roles a default-constructed palette copies from the light one: placeholder text would be dark
  // grey on the dark base, and Fusion draws a pressed (checked) button's bevel from these.
  p.setColor(QPalette::PlaceholderText, QColor(150, 150, 155));
  p.setColor(QPalette::Light, QColor(75, 75, 80));
  p.setColor(QPalette::Midlight, QColor(60, 60, 64));
  p.setColor(QPalette::Dark, QColor(20, 20, 22));
  p.setColor(QPalette::Shadow, Qt::black);
  p.setColor(QPalette::BrightText, Qt::white);
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
    p.setColor(QPalette::Disabled, role, disabled);
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  // As the CLI: past a file-size limit a write fails with EFBIG (the run fails naming the file)
  // instead of SIGXFSZ killing the window.
  std::signal(SIGXFSZ, SIG_IGN);
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("hnclip"));
  QApplication::setApplicationName(QStringLiteral("workbench"));
  QApplication::setApplicationDisplayName(QStringLiteral("HN-CLIP Workbench"));
  QApplication::setDesktopFileName(QStringLiteral("io.github.hnclip.Workbench"));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Fine-tune CLIP-style dual encoders with HN-CLIP margins"));
  parser.addHelpOption();
  const QCommandLineOption db({QStringLiteral("db")}, QStringLiteral("Run database (SQLite)."),
                              QStringLiteral("path"),
                              QString::fromStdString(hnclip::default_database_path()));
  const QCommandLineOption cache(
      {QStringLiteral("cache-dir")}, QStringLiteral("Folder for generated benchmarks."),
      QStringLiteral("path"), QString::fromStdString(hnclip::default_cache_dir()));
  const QCommandLineOption config(
      {QStringLiteral("config")},
      QStringLiteral("Run configuration as JSON (TrainConfig keys) to put in the form; keys "
                     "not given keep the form's default, the built-in fine-tuning recipe."),
      QStringLiteral("json"));
  const QCommandLineOption autostart({QStringLiteral("autostart")},
                                     QStringLiteral("Press Start once the window is up."));
  const QCommandLineOption quit_after({QStringLiteral("quit-after-epochs")},
                                      QStringLiteral("Stop the run and quit after this epoch."),
                                      QStringLiteral("n"));
  const QCommandLineOption screenshot(
      {QStringLiteral("screenshot")},
      QStringLiteral("Save a picture of the window after the first epoch."), QStringLiteral("png"));
  const QCommandLineOption latency(
      {QStringLiteral("latency-report")},
      QStringLiteral("Write event-loop latency percentiles (JSON) at exit."),
      QStringLiteral("json"));
  const QCommandLineOption dark({QStringLiteral("dark")}, QStringLiteral("Use a dark palette."));
  parser.addOptions({db, cache, config, autostart, quit_after, screenshot, latency, dark});
  const QCommandLineOption show_tab(
      {QStringLiteral("show-tab")},
      QStringLiteral(
          "Show this tab first (train, runs, captions, retrieval, experiments; "
          "captions/overview for one of its pages)."),
      QStringLiteral("name"));
  const QCommandLineOption select_caption(
      {QStringLiteral("select-caption")},
      QStringLiteral("Captions tab: show caption N of the split once its geometry is in."),
      QStringLiteral("n"));
  const QCommandLineOption screenshot_detail(
      {QStringLiteral("screenshot-detail")},
      QStringLiteral("With --select-caption: save its detail view, then quit."),
      QStringLiteral("png"));
  const QCommandLineOption screenshot_captions(
      {QStringLiteral("screenshot-captions-window")},
      QStringLiteral("With --select-caption: save the window, then quit."), QStringLiteral("png"));
  const QCommandLineOption caption_timing(
      {QStringLiteral("caption-timing")},
      QStringLiteral("With --select-caption: write how long its images took to show "
                     "(first and again from memory) as JSON, then quit."),
      QStringLiteral("json"));
  const QCommandLineOption caption_encoder(
      {QStringLiteral("caption-encoder")},
      QStringLiteral("Captions tab: text encoder (run:ID, ckpt:PATH, init:pretrained)."),
      QStringLiteral("encoder"));
  const QCommandLineOption caption_overlay(
      {QStringLiteral("caption-overlay")},
      QStringLiteral("Captions tab: a second encoder drawn over the first."),
      QStringLiteral("encoder"));
  parser.addOptions({show_tab, select_caption, screenshot_detail, screenshot_captions,
                     caption_timing, caption_encoder, caption_overlay});
  const QCommandLineOption retrieval_runs(
      {QStringLiteral("retrieval-runs")},
      QStringLiteral("Open the Retrieval tab comparing these two runs."), QStringLiteral("A,B"));
  const QCommandLineOption retrieval_direction(
      {QStringLiteral("retrieval-direction")},
      QStringLiteral("Retrieval tab direction: t2i or i2t."), QStringLiteral("dir"));
  const QCommandLineOption retrieval_largest(
      {QStringLiteral("select-largest-diff")},
      QStringLiteral("Retrieval tab: show the query the two runs rank most differently."));
  const QCommandLineOption retrieval_shot(
      {QStringLiteral("screenshot-retrieval")},
      QStringLiteral("Save a picture of the window once the Retrieval view is painted, then quit."),
      QStringLiteral("png"));
  parser.addOptions({retrieval_runs, retrieval_direction, retrieval_largest, retrieval_shot});
  const QCommandLineOption gbar_run(
      {QStringLiteral("gbar-run")},
      QStringLiteral("Captions tab: show the Ḡ heatmaps of run ID (its last snapshot, the "
                     "largest entry's pair selected)."),
      QStringLiteral("ID"));
  const QCommandLineOption gbar_shot(
      {QStringLiteral("screenshot-heatmap")},
      QStringLiteral(
          "With --gbar-run: save the heatmaps page once the pair's images are in, then quit."),
      QStringLiteral("PNG"));
  parser.addOptions({gbar_run, gbar_shot});
  const QCommandLineOption start_experiment(
      {QStringLiteral("start-experiment")},
      QStringLiteral("Experiments tab: start this experiment (JSON: name, preset, base, axes, "
                     "seeds, controls, control_scales, parallel, selection; a preset fills what "
                     "it leaves out)."),
      QStringLiteral("json"));
  const QCommandLineOption experiment_shot(
      {QStringLiteral("screenshot-experiment")},
      QStringLiteral("With --start-experiment: save the window once the experiment has ended and "
                     "its grid shows the final table, then quit."),
      QStringLiteral("png"));
  const QCommandLineOption experiment_plot(
      {QStringLiteral("experiment-plot")},
      QStringLiteral("With --start-experiment: save the chart shown then (the γ sweep, or sample "
                     "efficiency for an experiment over data_fraction) as PNG, SVG or PDF."),
      QStringLiteral("file"));
  const QCommandLineOption experiment_grid(
      {QStringLiteral("experiment-grid")},
      QStringLiteral("With --start-experiment: write the grid as shown (tab-separated) then."),
      QStringLiteral("tsv"));
  parser.addOptions({start_experiment, experiment_shot, experiment_plot, experiment_grid});
  parser.process(app);

  hnclip::app::WorkbenchOptions options;
  hnclip::app::ScriptOptions script;
  options.database = parser.value(db);
  options.cache_dir = parser.value(cache);
  options.initial_config_json = parser.value(config);
  if (parser.isSet(config)) {
    // Refused here, before the window: a key that is none (a misspelt "epoch") would otherwise
    // leave the form at its remembered value, and --autostart would train that without a word.
    try {
      const std::string text = options.initial_config_json.toStdString();
      const auto config = hnclip::typed_train_config(text, hnclip::builtin_finetune_recipe());
      // A key the configuration leaves unread (FineLIP's margin with the plain framework) would
      // be launched at its default in a greyed-out field: said instead, as `hnclip train` does.
      const std::string inert =
          hnclip::typed_key_without_effect(nlohmann::json::parse(text, nullptr, false), config);
      if (!inert.empty()) throw hnclip::ConfigError(inert);
    } catch (const std::exception& e) {
      qCritical("--config: %s", e.what());
      return 2;
    }
  }
  script.autostart = parser.isSet(autostart);
  bool ok = true;
  if (parser.isSet(quit_after)) {
    script.quit_after_epochs = parser.value(quit_after).toInt(&ok);
    if (!ok || script.quit_after_epochs < 1) {
      qCritical("--quit-after-epochs: '%s' is not a positive number",
                qPrintable(parser.value(quit_after)));
      return 2;
    }
  }
  script.screenshot_path = parser.value(screenshot);
  script.latency_report_path = parser.value(latency);
  options.show_tab = parser.value(show_tab);
  if (parser.isSet(select_caption)) {
    script.select_caption = parser.value(select_caption).toLongLong(&ok);
    if (!ok || script.select_caption < 0) {
      qCritical("--select-caption: '%s' is not a caption index (0, 1, ...)",
                qPrintable(parser.value(select_caption)));
      return 2;
    }
  }
  script.caption_detail_screenshot = parser.value(screenshot_detail);
  script.caption_window_screenshot = parser.value(screenshot_captions);
  script.caption_timing_path = parser.value(caption_timing);
  options.caption_encoder = parser.value(caption_encoder);
  options.caption_overlay = parser.value(caption_overlay);
  if (parser.isSet(retrieval_runs)) {
    const QStringList ids = parser.value(retrieval_runs).split(QLatin1Char(','));
    bool ok_a = false, ok_b = false;
    if (ids.size() == 2)
      options.retrieval_runs = {ids[0].toLongLong(&ok_a), ids[1].toLongLong(&ok_b)};
    if (!ok_a || !ok_b) {
      qCritical("--retrieval-runs: '%s' is not two run ids A,B",
                qPrintable(parser.value(retrieval_runs)));
      return 2;
    }
  }
  options.retrieval_direction = parser.value(retrieval_direction);
  if (!options.retrieval_direction.isEmpty() &&
      options.retrieval_direction != QStringLiteral("t2i") &&
      options.retrieval_direction != QStringLiteral("i2t")) {
    qCritical("--retrieval-direction: '%s' is neither t2i nor i2t",
              qPrintable(options.retrieval_direction));
    return 2;
  }
  script.retrieval_select_largest_diff = parser.isSet(retrieval_largest);
  script.retrieval_screenshot_path = parser.value(retrieval_shot);
  if (parser.isSet(gbar_run)) {
    bool ok_run = false;
    options.gbar_run = parser.value(gbar_run).toLongLong(&ok_run);
    if (!ok_run || options.gbar_run <= 0) {
      qCritical("--gbar-run: '%s' is not a run id (1, 2, ...)", qPrintable(parser.value(gbar_run)));
      return 2;
    }
  }
  script.gbar_screenshot_path = parser.value(gbar_shot);
  if (!script.gbar_screenshot_path.isEmpty() && options.gbar_run <= 0) {
    qCritical("--screenshot-heatmap needs --gbar-run ID");
    return 2;
  }
  script.experiment_json = parser.value(start_experiment);
  script.experiment_screenshot_path = parser.value(experiment_shot);
  script.experiment_plot_path = parser.value(experiment_plot);
  script.experiment_grid_path = parser.value(experiment_grid);
  const bool experiment_outputs = !script.experiment_screenshot_path.isEmpty() ||
                                  !script.experiment_plot_path.isEmpty() ||
                                  !script.experiment_grid_path.isEmpty();
  if (experiment_outputs && script.experiment_json.isEmpty()) {
    qCritical("--screenshot-experiment, --experiment-plot and --experiment-grid need "
              "--start-experiment JSON");
    return 2;
  }
  // The database's folder must exist (the store refuses to create folders it was not given).
  QDir().mkpath(QFileInfo(options.database).absolutePath());
  if (parser.isSet(dark)) {
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QApplication::setPalette(dark_palette());
  }

  hnclip::app::MainWindow window(options);
  const hnclip::app::ScriptedSession session(&window, options, script);  // a child of the window
  window.show();
  return app.exec();
}

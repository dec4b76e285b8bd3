// NewExperimentDialog before anything starts: the run count of the core's expansion, "no
// estimate" without a finished run to measure, the core's refusals (a value it refuses, a seed
// list that does not parse, a key no run would read) disabling Start, more than 200 runs needing
// the confirmation box,
// and the --no-controls caveat shown when the controls are switched off.
#include <QCheckBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

#include "support/test_dirs.h"
#include "widgets/experiments/experiment_spec_json.h"
#include "widgets/experiments/new_experiment_dialog.h"

using hnclip::gui::NewExperimentDialog;

namespace {

constexpr int kPreviewWaitMs = 10000;

// Waits for the preview of the fields as they are now.
bool settle(NewExperimentDialog& dialog) {
  QSignalSpy ready(&dialog, &NewExperimentDialog::previewReady);
  return ready.wait(kPreviewWaitMs);
}

}  // namespace

class TestNewExperimentDialog : public QObject {
  Q_OBJECT
 private slots:
  void previewsRefusesAndConfirms();
  void scriptedSpecStartsWhereTrainWould();
};

void TestNewExperimentDialog::previewsRefusesAndConfirms() {
  hnclip::test::ScratchDir dir;
  NewExperimentDialog dialog(QString::fromStdString((dir / "runs.db").string()), nullptr);
  auto* start = dialog.findChild<QPushButton*>(QStringLiteral("start"));
  auto* summary = dialog.findChild<QLabel*>(QStringLiteral("summary"));
  QVERIFY(start && summary);
  QVERIFY(settle(dialog));
  // gamma-sweep: γ 0 … 1 (γ 0 is the paired control), a learnt scale, s 10, 20, 50 (100 is the
  // paired one) = 9 configurations × 3 seeds.
  QCOMPARE(dialog.preview().cells, 9);
  QCOMPARE(dialog.preview().runs, 27);
  QCOMPARE(dialog.preview().reused, 0);
  QVERIFY(std::isnan(dialog.preview().estimated_seconds));
  QVERIFY(summary->text().contains(QStringLiteral("no estimate")));
  QVERIFY(summary->text().contains(QStringLiteral("27 runs")));
  QVERIFY(dialog.problem().isEmpty());
  QVERIFY(start->isEnabled());

  // A value the core refuses, with its message.
  dialog.setAxis(0, QStringLiteral("loss_gamma"), QStringLiteral("0, -1"));
  QVERIFY(settle(dialog));
  QVERIFY2(dialog.problem().contains(QStringLiteral("gamma")), qPrintable(dialog.problem()));
  QVERIFY(!start->isEnabled());
  // A seed list that does not parse names the field and the word.
  dialog.setAxis(0, QStringLiteral("loss_gamma"), QStringLiteral("0, 0.5"));
  dialog.setSeeds(QStringLiteral("1, x"));
  QVERIFY(settle(dialog));
  QVERIFY2(dialog.problem().contains(QStringLiteral("'x'")), qPrintable(dialog.problem()));
  QVERIFY(!start->isEnabled());

  // An axis no configuration reads (FineLIP's margin with the plain framework) would make
  // identical runs that each record a margin they never used; a base change likewise.
  dialog.setSeeds(QStringLiteral("1"));
  dialog.setAxis(0, QStringLiteral("finelip_margin"), QStringLiteral("0.1, 0.3"));
  QVERIFY(settle(dialog));
  QVERIFY2(dialog.problem().contains(
               QStringLiteral("config key 'finelip_margin' (--finelip-margin) has no effect "
                              "without --framework finelip")),
           qPrintable(dialog.problem()));
  QVERIFY(!start->isEnabled());
  dialog.setBaseChanges(QStringLiteral("{\"framework\": \"finelip\"}"));
  QVERIFY(settle(dialog));
  QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
  dialog.setBaseChanges(QStringLiteral("{\"peft_rank\": 4}"));
  dialog.setAxis(0, QStringLiteral("loss_gamma"), QStringLiteral("0, 0.5"));
  QVERIFY(settle(dialog));
  QVERIFY2(dialog.problem().contains(QStringLiteral("config key 'peft_rank'")),
           qPrintable(dialog.problem()));
  QVERIFY(!start->isEnabled());
  dialog.setBaseChanges(QString());

  // 6 configurations × 40 seeds = 240 runs: refused until confirmed.
  QStringList seeds;
  for (int s = 1; s <= 40; ++s) seeds << QString::number(s);
  dialog.setSeeds(seeds.join(QLatin1Char(',')));
  QVERIFY(settle(dialog));
  QCOMPARE(dialog.preview().runs, 240);
  QVERIFY(dialog.preview().needs_confirmation);
  QVERIFY(!start->isEnabled());
  auto* confirm = dialog.findChild<QCheckBox*>(QStringLiteral("confirm"));
  QVERIFY(confirm && confirm->isVisibleTo(&dialog));
  confirm->setChecked(true);
  QVERIFY(settle(dialog));
  QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
  QVERIFY(start->isEnabled());
  QVERIFY(dialog.confirmed());

  // Without controls: the caveat is shown, and the spec says so.
  auto* caveat = dialog.findChild<QLabel*>(QStringLiteral("controlsCaveat"));
  QVERIFY(caveat && !caveat->isVisibleTo(&dialog));
  dialog.setSeeds(QStringLiteral("1"));
  dialog.setControls(false);
  QVERIFY(settle(dialog));
  QVERIFY(caveat->isVisibleTo(&dialog));
  QCOMPARE(dialog.preview().runs, 2);
  QVERIFY(!dialog.spec().controls);
  QCOMPARE(dialog.spec().base.value("val_split", std::string()), std::string("val"));
}

// A spec given as JSON (--start-experiment) settles as `hnclip sweep --config` does: without
// "init" or "model" it starts where `train` would (the committed checkpoint on the built-in
// benchmark, not random weights); "random" and a named start are kept.
void TestNewExperimentDialog::scriptedSpecStartsWhereTrainWould() {
  auto settled = [](const char* json) {
    auto spec = hnclip::gui::experiment_spec_from_json(nlohmann::json::parse(json));
    hnclip::gui::settle_experiment_base(spec);
    return spec.base;
  };
  const auto plain =
      settled(R"({"base": {"epochs": 1}, "axes": [{"key": "loss_gamma", "values": [0.5]}]})");
  QCOMPARE(plain.value("init", std::string("?")), std::string("pretrained"));
  QCOMPARE(plain.value("val_split", std::string()), std::string("val"));
  const auto random = settled(R"({"base": {"init": "random"}, "axes": []})");
  QCOMPARE(random.value("init", std::string("?")), std::string());
  const auto sized = settled(R"({"base": {"model": "ViT-B/32"}, "axes": []})");
  QVERIFY(!sized.contains("init"));
  const auto manifest = settled(R"({"base": {"benchmark": "manifest"}, "axes": []})");
  QCOMPARE(manifest.value("init", std::string("?")), std::string());
  // The dialog's base is a whole config: its init, random ("") included, is the user's.
  QCOMPARE(settled(R"({"base": {"init": ""}, "axes": []})").value("init", std::string("?")),
           std::string());
}

QTEST_MAIN(TestNewExperimentDialog)
#include "test_new_experiment_dialog.moc"

// TrainPanel: a configuration Start cannot take is said beside Start (the form's own message may
// be scrolled out of view), and --config text with a key that is none is refused, not dropped.
#include <QLabel>
#include <QPushButton>
#include <QtTest>

#include "support/test_dirs.h"
#include "widgets/train/train_config_form.h"
#include "widgets/train/train_panel.h"

using hnclip::gui::TrainPanel;

class TestTrainPanel : public QObject {
  Q_OBJECT
 private slots:
  void why_start_is_off_is_said_beside_it() {
    hnclip::test::ScratchDir dir;
    TrainPanel panel(QString::fromStdString((dir / "runs.db").string()),
                     QString::fromStdString((dir / "cache").string()), {"cpu"});
    panel.resize(1000, 700);
    panel.show();
    auto* problem = panel.findChild<QLabel*>(QStringLiteral("startProblem"));
    QVERIFY(problem);
    QVERIFY(panel.startButton()->isEnabled());
    QVERIFY(problem->isHidden());

    QString error;
    QVERIFY2(panel.setConfigJson(QStringLiteral(R"({"name": "gamma\t0.5"})"), &error),
             qPrintable(error));
    QVERIFY(!panel.startButton()->isEnabled());
    QVERIFY(!problem->isHidden());
    QVERIFY2(problem->text().contains(QStringLiteral("--name must be one line")),
             qPrintable(problem->text()));

    // Another problem while Start stays off: the line follows it.
    QVERIFY(panel.setConfigJson(QStringLiteral(R"({"name": "ok", "lr": -0.001})"), &error));
    QVERIFY(!panel.startButton()->isEnabled());
    QVERIFY2(problem->text().contains(QStringLiteral("--lr")), qPrintable(problem->text()));

    QVERIFY(panel.setConfigJson(QStringLiteral(R"({"name": "ok", "lr": 0.001})"), &error));
    QVERIFY(panel.startButton()->isEnabled());
    QVERIFY(problem->isHidden());

    // A run database that cannot be used: nothing could be recorded, so Start is off too.
    panel.setStoreProblem(QStringLiteral("the run database cannot be used"));
    QVERIFY(!panel.startButton()->isEnabled());
    QCOMPARE(problem->text(), QStringLiteral("Start is off: the run database cannot be used"));
    QVERIFY(!problem->isHidden());
    panel.setStoreProblem({});
    QVERIFY(panel.startButton()->isEnabled());
    QVERIFY(problem->isHidden());
  }

  void a_config_key_that_is_none_is_refused_and_changes_nothing() {
    hnclip::test::ScratchDir dir;
    TrainPanel panel(QString::fromStdString((dir / "runs.db").string()),
                     QString::fromStdString((dir / "cache").string()), {"cpu"});
    QString error;
    QVERIFY(panel.setConfigJson(QStringLiteral(R"({"epochs": 3})"), &error));
    QVERIFY(!panel.setConfigJson(QStringLiteral(R"({"epoch": 7, "loss_gamma": 0.25})"), &error));
    QCOMPARE(error, QStringLiteral("config key 'epoch' is unknown (did you mean 'epochs'?)"));
    QCOMPARE(panel.currentConfig().epochs, 3);
    QVERIFY(panel.currentConfig().loss_gamma != 0.25);  // nothing of the refused text was taken
  }
};

QTEST_MAIN(TestTrainPanel)
#include "test_train_panel.moc"

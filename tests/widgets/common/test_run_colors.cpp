// run_color: stable per id, and neighbouring ids are visibly different.
#include <QtTest>

#include "widgets/common/run_colors.h"

class TestRunColors : public QObject {
  Q_OBJECT
 private slots:
  void same_id_same_colour() { QCOMPARE(hnclip::gui::run_color(7), hnclip::gui::run_color(7)); }
  void neighbouring_ids_differ_in_hue() {
    for (int64_t id = 1; id < 50; ++id) {
      const int a = hnclip::gui::run_color(id).hsvHue();
      const int b = hnclip::gui::run_color(id + 1).hsvHue();
      const int d = std::abs(a - b);
      QVERIFY2(std::min(d, 360 - d) >= 30,
               qPrintable(QStringLiteral("ids %1/%2").arg(id).arg(id + 1)));
    }
  }
};

QTEST_MAIN(TestRunColors)
#include "test_run_colors.moc"

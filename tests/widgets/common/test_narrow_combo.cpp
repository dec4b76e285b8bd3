// make_narrow_combo: a combo's width no longer follows its longest item (a plain combo's does),
// its list still opens wide enough to show every item whole, and its tooltip shows the current
// item in full, before what the combo picks.
#include <QAbstractItemView>
#include <QComboBox>
#include <QHelpEvent>
#include <QToolTip>
#include <QtTest>

#include "widgets/common/narrow_combo.h"

namespace {
const QString kLongName =
    QStringLiteral("s52 · HN γ 0.5 · s learnt · seed 1 · lr 1e-3 · batch 64 · ") +
    QStringLiteral("ViT-B/16 from OpenAI weights, long-caption recipe (#1)");
// Shows `combo` as a narrow combo of "run 1" and kLongName, at its smallest.
bool show_narrow_with_long_item(QComboBox& combo) {
  hnclip::gui::make_narrow_combo(&combo, 16);
  combo.addItem(QStringLiteral("run 1"));
  combo.addItem(kLongName);
  combo.resize(combo.minimumSizeHint());
  combo.show();
  return QTest::qWaitForWindowExposed(&combo);
}
}  // namespace

class TestNarrowCombo : public QObject {
  Q_OBJECT
 private slots:
  void width_does_not_follow_the_items() {
    QComboBox plain, narrow, empty;
    hnclip::gui::make_narrow_combo(&narrow, 16);
    hnclip::gui::make_narrow_combo(&empty, 16);
    for (QComboBox* c : {&plain, &narrow}) {
      c->addItem(QStringLiteral("run 1"));
      c->addItem(kLongName);
    }
    QVERIFY2(plain.minimumSizeHint().width() > narrow.minimumSizeHint().width() + 300,
             "a plain combo is as wide as its longest item (the premise)");
    QCOMPARE(narrow.minimumSizeHint().width(), empty.minimumSizeHint().width());
    QCOMPARE(narrow.sizeHint().width(), empty.sizeHint().width());
    QVERIFY(narrow.minimumSizeHint().width() < 250);
  }

  void its_list_opens_wide_enough_for_every_item() {
    QComboBox combo;
    QVERIFY(show_narrow_with_long_item(combo));
    combo.showPopup();
    QWidget* popup = combo.view()->window();
    QTRY_VERIFY(popup->isVisible());
    QVERIFY2(popup->width() >= combo.fontMetrics().horizontalAdvance(kLongName),
             qPrintable(QStringLiteral("%1 < %2")
                            .arg(popup->width())
                            .arg(combo.fontMetrics().horizontalAdvance(kLongName))));
    combo.hidePopup();
  }

  void tooltip_shows_the_current_item_in_full() {
    QComboBox combo;
    combo.setToolTip(QStringLiteral("The run whose stored Ḡ snapshots are shown"));
    QVERIFY(show_narrow_with_long_item(combo));
    {
      // As a refill does: the choice changes with the combo's signals blocked.
      const QSignalBlocker block(&combo);
      combo.setCurrentIndex(1);
    }
    const QPoint at(5, 5);
    QHelpEvent help(QEvent::ToolTip, at, combo.mapToGlobal(at));
    QCoreApplication::sendEvent(&combo, &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().startsWith(kLongName), qPrintable(QToolTip::text()));
    QVERIFY(
        QToolTip::text().endsWith(QStringLiteral("The run whose stored Ḡ snapshots are shown")));
  }

  // NarrowComboBox paints its current item with both ends kept: the seed and the run number at
  // the end of "s52 · … · seed 2 (#6)" told the Retrieval tab's two runs apart and were cut off.
  void narrow_combo_box_shows_both_ends_of_a_long_item() {
    hnclip::gui::NarrowComboBox combo(16);
    combo.addItem(QStringLiteral("run 1"));
    combo.addItem(kLongName);
    combo.resize(combo.minimumSizeHint());
    combo.show();
    QVERIFY(QTest::qWaitForWindowExposed(&combo));
    QCOMPARE(combo.shownText(), QStringLiteral("run 1"));  // fits: whole
    combo.setCurrentIndex(1);
    const QString shown = combo.shownText();
    QVERIFY2(shown.contains(QChar(0x2026)), qPrintable(shown));
    QVERIFY2(shown.startsWith(QStringLiteral("s52")), qPrintable(shown));
    QVERIFY2(shown.endsWith(QStringLiteral("(#1)")), qPrintable(shown));
    QCOMPARE(combo.currentText(), kLongName);        // the item itself is untouched
    QVERIFY(combo.minimumSizeHint().width() < 250);  // and the combo narrow
    combo.grab();  // paints through paintEvent without a warning or a crash
  }
};

QTEST_MAIN(TestNarrowCombo)
#include "test_narrow_combo.moc"

// shared_words_html on hand-made captions: content words shared with the other caption are
// marked (any case, each occurrence), stop words never, HTML in the text is escaped, and
// punctuation and spacing come through unchanged.
#include <QRegularExpression>
#include <QtTest>

#include "widgets/common/shared_words_html.h"

using hnclip::gui::shared_words_html;

namespace {
// The words wrapped in <b ...>…</b>, in order.
QStringList marked(const QString& html) {
  QStringList out;
  static const QRegularExpression re(QStringLiteral("<b [^>]*>([^<]*)</b>"));
  for (auto it = re.globalMatch(html); it.hasNext();) out << it.next().captured(1);
  return out;
}
// The text with the markup removed and entities decoded (what a reader sees).
QString visible(const QString& html) {
  QString s = html;
  s.remove(QRegularExpression(QStringLiteral("<[^>]*>")));
  s.replace(QStringLiteral("&lt;"), QStringLiteral("<"))
      .replace(QStringLiteral("&gt;"), QStringLiteral(">"));
  s.replace(QStringLiteral("&quot;"), QStringLiteral("\""))
      .replace(QStringLiteral("&amp;"), QStringLiteral("&"));
  return s;
}
}  // namespace

class TestSharedWordsHtml : public QObject {
  Q_OBJECT
 private slots:
  void marks_shared_content_words_only() {
    const QString a = QStringLiteral("A red car is parked in the street.");
    const QString b = QStringLiteral("The red car parked near a street lamp");
    const QString html = shared_words_html(a, b);
    QCOMPARE(marked(html), (QStringList{QStringLiteral("red"), QStringLiteral("car"),
                                        QStringLiteral("parked"), QStringLiteral("street")}));
    QCOMPARE(visible(html), a);  // nothing lost or added
  }

  void stop_words_are_never_marked() {
    const QString html = shared_words_html(QStringLiteral("the dog and the cat"),
                                           QStringLiteral("The cat and the bird"));
    QCOMPARE(marked(html), QStringList{QStringLiteral("cat")});
  }

  void case_insensitive_and_every_occurrence() {
    const QString html =
        shared_words_html(QStringLiteral("Dog sees DOG; dog."), QStringLiteral("a dog"));
    QCOMPARE(marked(html),
             (QStringList{QStringLiteral("Dog"), QStringLiteral("DOG"), QStringLiteral("dog")}));
    QVERIFY(html.contains(QStringLiteral("</b>; <b")));  // punctuation between the marks kept as is
  }

  void html_is_escaped() {
    const QString a = QStringLiteral("<script>alert(\"x\")</script> & <b>bold</b> table");
    const QString html = shared_words_html(a, QStringLiteral("a bold table & script"));
    QVERIFY2(!html.contains(QStringLiteral("<script>")), qPrintable(html));
    QVERIFY2(html.startsWith(QStringLiteral("&lt;<b ")),
             qPrintable(html));  // "<" escaped, "script" marked
    QVERIFY(html.contains(QStringLiteral("&amp;")));
    QVERIFY(html.contains(QStringLiteral("&quot;x&quot;")));
    // The literal <b> of the caption is text; only the shared words are real marks.
    QCOMPARE(marked(html), (QStringList{QStringLiteral("script"), QStringLiteral("script"),
                                        QStringLiteral("bold"), QStringLiteral("table")}));
    QCOMPARE(visible(html), a);
  }

  void punctuation_splits_words_and_non_ascii_survives() {
    const QString a = QStringLiteral("café-table, 2 chairs (wooden)… über");
    const QString html = shared_words_html(a, QStringLiteral("wooden table with chairs"));
    QCOMPARE(marked(html), (QStringList{QStringLiteral("table"), QStringLiteral("chairs"),
                                        QStringLiteral("wooden")}));
    QCOMPARE(visible(html), a);
  }

  void nothing_shared_gives_the_escaped_text() {
    QCOMPARE(shared_words_html(QStringLiteral("a < b"), QStringLiteral("c")),
             QStringLiteral("a &lt; b"));
    QCOMPARE(shared_words_html(QString(), QStringLiteral("c")), QString());
  }
};

QTEST_MAIN(TestSharedWordsHtml)
#include "test_shared_words_html.moc"

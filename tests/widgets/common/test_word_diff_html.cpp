// word_diff_html on hand-made captions: exactly the words that differ from the reference are
// marked (runs of added ones in one <b>, the reference's missing ones in <s>), shared words stay
// plain, case
// and punctuation are no difference, and HTML in either caption is escaped.
#include <QRegularExpression>
#include <QtTest>

#include "widgets/common/word_diff_html.h"

using hnclip::gui::word_diff_html;

namespace {
// The texts inside <tag style=…>…</tag>, in order.
QStringList marked(const QString& html, const QString& tag) {
  QStringList out;
  const QRegularExpression re(QStringLiteral("<%1 style=[^>]*>([^<]*)</%1>").arg(tag));
  for (auto it = re.globalMatch(html); it.hasNext();) out << it.next().captured(1);
  return out;
}
QStringList added(const QString& html) { return marked(html, QStringLiteral("b")); }
QStringList removed(const QString& html) { return marked(html, QStringLiteral("s")); }
// What a reader sees: markup removed, entities decoded.
QString visible(const QString& html) {
  QString s = html;
  s.remove(QRegularExpression(QStringLiteral("<[^>]*>")));
  s.replace(QStringLiteral("&lt;"), QStringLiteral("<"))
      .replace(QStringLiteral("&gt;"), QStringLiteral(">"))
      .replace(QStringLiteral("&quot;"), QStringLiteral("\""))
      .replace(QStringLiteral("&amp;"), QStringLiteral("&"));
  return s;
}
const QString kBase =
    QStringLiteral("This image shows three objects on a wooden table: a red cube, a blue sphere.");
}  // namespace

class TestWordDiffHtml : public QObject {
  Q_OBJECT
 private slots:
  void substitution_marks_the_changed_word_only() {
    const QString twin = QString(kBase).replace(QStringLiteral("red"), QStringLiteral("green"));
    const QString html = word_diff_html(twin, kBase);
    QCOMPARE(added(html), QStringList{QStringLiteral("green")});
    QCOMPARE(removed(html), QStringList{QStringLiteral("red")});
    QVERIFY2(html.contains(QStringLiteral("</s> <b ")), qPrintable(html));  // removed, then added
    QCOMPARE(visible(word_diff_html(twin, kBase, false)), twin);            // nothing lost or added
    QCOMPARE(removed(word_diff_html(twin, kBase, false)), QStringList());
  }

  void insertion_and_deletion() {
    const QString longer =
        QString(kBase).replace(QStringLiteral("a red"), QStringLiteral("a small red"));
    QCOMPARE(added(word_diff_html(longer, kBase)), QStringList{QStringLiteral("small")});
    QCOMPARE(removed(word_diff_html(longer, kBase)), QStringList());
    QCOMPARE(added(word_diff_html(kBase, longer)), QStringList());
    QCOMPARE(removed(word_diff_html(kBase, longer)), QStringList{QStringLiteral("small")});
    // Missing words at the end are shown before the closing punctuation.
    const QString html =
        word_diff_html(QStringLiteral("a cube."), QStringLiteral("a cube on top."));
    QCOMPARE(removed(html), QStringList{QStringLiteral("on top")});
    QVERIFY2(html.endsWith(QStringLiteral("</s>.")), qPrintable(html));
  }

  void a_run_of_added_words_is_one_mark() {
    const QString html = word_diff_html(QStringLiteral("a big, red cube on a table"),
                                        QStringLiteral("a cube on a wooden table"));
    QCOMPARE(added(html), QStringList{QStringLiteral("big, red")});
    QCOMPARE(removed(html), QStringList{QStringLiteral("wooden")});
    QCOMPARE(visible(word_diff_html(QStringLiteral("a big, red cube on a table"),
                                    QStringLiteral("a cube on a wooden table"), false)),
             QStringLiteral("a big, red cube on a table"));
  }

  void shared_words_stay_plain_whatever_their_case_and_punctuation() {
    const QString html = word_diff_html(QStringLiteral("A RED cube; on the table"),
                                        QStringLiteral("a red cube on the table."));
    QCOMPARE(added(html), QStringList());
    QCOMPARE(removed(html), QStringList());
    QCOMPARE(html, QStringLiteral("A RED cube; on the table"));
    QCOMPARE(word_diff_html(kBase, kBase), kBase.toHtmlEscaped());
  }

  void html_is_escaped() {
    const QString ref = QStringLiteral("a <b>red</b> cube & a sphere");
    const QString text = QStringLiteral("a <b>blue</b> cube & a <script>sphere");
    const QString html = word_diff_html(text, ref);
    QVERIFY2(!html.contains(QStringLiteral("<script>")), qPrintable(html));
    QVERIFY2(html.contains(QStringLiteral("&amp;")), qPrintable(html));
    QVERIFY2(html.startsWith(QStringLiteral("a &lt;")), qPrintable(html));
    // The literal <b> of the caption is text: only "blue" and the new word "script" are marked.
    QCOMPARE(added(html), (QStringList{QStringLiteral("blue"), QStringLiteral("script")}));
    QCOMPARE(removed(html), QStringList{QStringLiteral("red")});
    QCOMPARE(visible(word_diff_html(text, ref, false)), text);
    // A run of missing words is one mark, without the punctuation between them.
    QCOMPARE(removed(word_diff_html(QStringLiteral("x"), QStringLiteral("x y&z"))),
             QStringList{QStringLiteral("y z")});
  }

  void empty_sides() {
    QCOMPARE(word_diff_html(QString(), QString()), QString());
    QCOMPARE(added(word_diff_html(QStringLiteral("two words"), QString())),
             QStringList{QStringLiteral("two words")});
    QCOMPARE(removed(word_diff_html(QString(), QStringLiteral("two words"))),
             QStringList{QStringLiteral("two words")});
  }
};

QTEST_MAIN(TestWordDiffHtml)
#include "test_word_diff_html.moc"

// tsan_catches_a_planted_race (tsan preset only): a real race beside Qt's hand-offs, to show that
// the preset's settings (ignore_noninstrumented_modules, tests/sanitizers/tsan.supp, QT_NO_GLIB)
// still report a race in our code when a queued call is involved. Both threads write `shared`
// with nothing ordering them; the test passes only if TSan says so.
#include <QCoreApplication>
#include <QThread>
#include <QTimer>
int shared = 0;
int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  QThread t;
  QObject worker;
  worker.moveToThread(&t);
  t.start();
  QMetaObject::invokeMethod(&worker, [] { shared = 1; }, Qt::QueuedConnection);
  shared = 2;
  QTimer::singleShot(200, &app, [&] { t.quit(); t.wait(); app.quit(); });
  return app.exec();
}

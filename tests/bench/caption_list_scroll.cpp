// Scrolling the Captions tab's caption list (CaptionListModel behind its sort/filter proxy, in a
// QTableView set up by CaptionListModel::configureView) over a 10,000-caption split, against the
// same list with 1,000 captions in the same process: a virtualised list paints only the visible
// rows, so a frame should cost the same at 10k as at 1k (ratio ≈ 1). Also times filling the list,
// sorting by hardest-neighbour cosine and filtering by a word, at both sizes.
// Captions are 60–100 words of the built-in benchmark's vocabulary (its captions are that long).
//   QT_QPA_PLATFORM=offscreen build/dev/tests/caption_list_scroll
#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include <QApplication>
#include <QElapsedTimer>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QTableView>

#include "bench/bench_support.h"
#include "widgets/captions/caption_list_model.h"

namespace {

using hnclip::gui::CaptionListModel;

std::vector<QString> make_captions(int n, std::mt19937& rng) {
  static const char* words[] = {"this",   "image", "shows",      "three",    "objects",  "on",
                                "a",      "white", "background", "large",    "small",    "red",
                                "blue",   "green", "circle",     "square",   "triangle", "cross",
                                "hollow", "solid", "filled",     "outlined", "top",      "left",
                                "corner", "in",    "the",        "middle",   "bottom",   "right",
                                "there",  "is",    "that",       "only"};
  std::uniform_int_distribution<int> length(60, 100),
      word(0, static_cast<int>(std::size(words)) - 1);
  std::vector<QString> out;
  out.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    QString text;
    for (int w = length(rng); w > 0; --w)
      text += QLatin1String(words[word(rng)]) + QLatin1Char(' ');
    out.push_back(text.trimmed());
  }
  return out;
}

struct Timing {
  double fill_ms = 0, frame_mean_ms = 0, frame_p99_ms = 0, sort_ms = 0, filter_ms = 0;
};

Timing measure(int n, int frames) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> cosine(0.5, 1.0);
  std::vector<double> hardest(static_cast<size_t>(n));
  for (auto& h : hardest) h = cosine(rng);
  auto texts = make_captions(n, rng);

  CaptionListModel model;
  QSortFilterProxyModel proxy;
  CaptionListModel::configureProxy(&proxy);
  proxy.setSourceModel(&model);
  QTableView view;
  view.setModel(&proxy);
  CaptionListModel::configureView(&view);
  view.resize(520, 800);
  view.show();
  QApplication::processEvents();

  Timing t;
  QElapsedTimer clock;
  clock.start();
  model.setCaptions(std::move(texts), std::move(hardest));
  view.viewport()->repaint();
  QApplication::processEvents();
  t.fill_ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;

  // Frames spread over the whole list, as a drag of the scroll bar from top to bottom gives.
  QScrollBar* bar = view.verticalScrollBar();
  std::vector<double> ms;
  for (int f = 0; f < frames; ++f) {
    clock.restart();
    bar->setValue(
        static_cast<int>(static_cast<long long>(bar->maximum()) * f / std::max(1, frames - 1)));
    view.viewport()->repaint();
    ms.push_back(static_cast<double>(clock.nsecsElapsed()) / 1e6);
  }
  std::sort(ms.begin(), ms.end());
  t.frame_mean_ms = hnclip::bench::mean(ms);
  t.frame_p99_ms = ms[static_cast<size_t>(0.99 * static_cast<double>(ms.size() - 1))];

  clock.restart();
  view.sortByColumn(CaptionListModel::HardestColumn, Qt::DescendingOrder);
  view.viewport()->repaint();
  QApplication::processEvents();
  t.sort_ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;

  clock.restart();
  proxy.setFilterFixedString(QStringLiteral("triangle"));
  view.viewport()->repaint();
  QApplication::processEvents();
  t.filter_ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  const int frames = 600;
  measure(1000, 50);  // warm-up: fonts, glyph caches
  const Timing small = measure(1000, frames);
  const Timing large = measure(10000, frames);
  std::printf("captions  fill_ms  frame_mean_ms  frame_p99_ms  sort_ms  filter_ms\n");
  for (const auto& [n, t] : {std::pair<int, Timing>{1000, small}, {10000, large}}) {
    std::printf("%8d  %7.1f  %13.2f  %12.2f  %7.1f  %9.1f\n", n, t.fill_ms, t.frame_mean_ms,
                t.frame_p99_ms, t.sort_ms, t.filter_ms);
  }
  std::printf("frame time 10k / 1k: %.2f (1 = virtualised: only visible rows are painted)\n",
              large.frame_mean_ms / small.frame_mean_ms);
  return 0;
}

#include "widgets/train/benchmark_row_text.h"

#include <algorithm>
#include <cmath>
#include <exception>

#include "data/benchmark_registry.h"
#include "data/shared_image_files.h"
#include "data/split_statistics.h"
#include "data/synthetic_benchmark.h"
#include "job/run_benchmark_spec.h"

namespace hnclip::gui {

namespace {

// Test images that are training images too (the same files): said first, since recall on them
// is not held out. "" when none, or when the test split is the training split (the run says so).
QString shared_with_training(const hnclip::Benchmark& benchmark,
                             const hnclip::TrainConfig& config) {
  if (config.test_split == config.train_split) return {};
  const auto splits = benchmark.splits();
  if (std::find(splits.begin(), splits.end(), config.train_split) == splits.end()) return {};
  const auto shared =
      hnclip::shared_image_files(hnclip::image_files(benchmark.split(config.test_split)),
                                 hnclip::image_files(benchmark.split(config.train_split)));
  if (shared.empty()) return {};
  return QObject::tr(
             "%1 of the %2 split's images are also %3 images (the same files): their "
             "recall is not held out. ")
      .arg(shared.size())
      .arg(QString::fromStdString(config.test_split), QString::fromStdString(config.train_split));
}

}  // namespace

QString benchmark_row_text(const hnclip::TrainConfig& config, const std::string& cache_dir) {
  const hnclip::BenchmarkSpec spec = hnclip::run_benchmark_spec(config, cache_dir);
  if (spec.name == "synthetic") {
    const hnclip::SyntheticOptions options{cache_dir, spec.size, spec.seed};
    if (!hnclip::synthetic_benchmark_generated(options)) {
      const auto folder = hnclip::synthetic_benchmark_folder(options);
      return QObject::tr("Table A1: not generated yet — the first run generates it into %1")
          .arg(QString::fromStdString(folder));
    }
  } else if (spec.root.empty()) {
    return {};
  }
  try {
    const auto benchmark = hnclip::open_benchmark(spec);
    const auto row = hnclip::split_statistics(*benchmark, config.test_split);
    const auto& s = row.similarity;
    const QString shared = shared_with_training(*benchmark, config);
    if (std::isnan(s.mean_pairwise))
      return shared + QObject::tr(
                          "Table A1, %1 split: %2 image(s), %3 caption(s); no caption similarity "
                          "(it needs two captions or more)")
                          .arg(QString::fromStdString(row.split))
                          .arg(row.images)
                          .arg(row.captions);
    return shared +
           QObject::tr(
               "Table A1, %1 split: %2 images, %3 captions, %4 words/caption; bag-of-words "
               "cosine: pairwise %5, hardest mean %6 / median %7")
               .arg(QString::fromStdString(row.split))
               .arg(row.images)
               .arg(row.captions)
               .arg(s.mean_words, 0, 'f', 1)
               .arg(s.mean_pairwise, 0, 'f', 3)
               .arg(s.mean_hardest, 0, 'f', 3)
               .arg(s.median_hardest, 0, 'f', 3);
  } catch (const std::exception& e) {
    return QObject::tr("Table A1: %1").arg(QString::fromStdString(e.what()));
  }
}

}  // namespace hnclip::gui

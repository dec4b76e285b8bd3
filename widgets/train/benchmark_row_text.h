#pragma once
// The Train tab's one-line Table-A1 row for the benchmark being configured: the test split's
// images, captions, mean words and bag-of-words similarity (mean pairwise, mean and median
// hardest). Reading a data set can take a while, so the panel calls this on a worker thread.

#include <string>

#include <QObject>
#include <QString>

#include "train/train_config.h"

namespace hnclip::gui {

// Never generates the built-in benchmark (a run does that): when its cache folder does not exist
// yet the text says so. Errors (unreadable data) come back as text naming the problem.
QString benchmark_row_text(const hnclip::TrainConfig& config, const std::string& cache_dir);

}  // namespace hnclip::gui

#pragma once
// A stored run's test set (train/run_test_set.h) with what its data summary knows besides the
// config: a test split some of whose images are also training images (the same files, listed
// under both splits of a manifest; counted when the run was created) is labelled
// "… / test (20 of 162 images trained on)" and gets a key of its own, as a test split
// that is the training split does: its recall is partly of images the run trained on, so it is
// neither ranked against held-out runs nor shown without saying so. Plain values: any thread.

#include <string>

#include "store/run_store.h"
#include "train/run_test_set.h"
#include "train/train_config.h"

namespace hnclip {

// From the config and the run's data_summary_json. A summary that cannot be read, or one recorded
// before the count was kept (stop 60), adds nothing.
RunTestSet stored_run_test_set(const TrainConfig& config, const std::string& data_summary_json);
// From the record's config JSON and data summary; never throws (an unreadable config gives
// run_test_set's readable = false).
RunTestSet stored_run_test_set(const RunRecord& run);

}  // namespace hnclip

#pragma once
// TrainResult: how a training run ended, as plain values (no LibTorch), so that code which must
// not see LibTorch headers (the Qt widgets) can start a TrainingJob and read its outcome.

#include <cstdint>
#include <string>

#include "train/train_events.h"

namespace hnclip {

struct TrainResult {
  std::string status;  // finished | stopped | failed
  std::string message;
  int best_epoch = -1;
  EvalEvent best_eval;  // valid when best_epoch >= 0
  EvalEvent last_eval;
  int64_t steps = 0;
  double train_seconds = 0;     // optimiser steps only (no evaluation, no checkpoint writing)
  int64_t images_seen = 0;
  double loader_wait_seconds = 0;
  double probe_seconds = 0;     // part of train_seconds spent in gradient probes
  int64_t probes = 0;
  // Part of train_seconds spent in the training backward passes (every step's, probed or not;
  // not the probe's own passes), and how many this process ran: probe_seconds / probes against
  // backward_seconds / backward_passes says how far a probe is from its floor of one extra pass.
  double backward_seconds = 0;
  int64_t backward_passes = 0;
};

}  // namespace hnclip

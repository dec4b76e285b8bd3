#pragma once
// Plain value structs the trainer reports through TrainObserver. No LibTorch here: the store,
// the CLI and the GUI consume them.

#include <cstdint>
#include <string>
#include <vector>

#include "eval/retrieval_result.h"
#include "train/loss_term.h"
#include "train/rank_throughput.h"

namespace hnclip {

struct StepEvent {
  int64_t step = 0;  // optimiser steps done so far in the run (1-based after a step)
  int epoch = 0;     // 1-based epoch the step belongs to
  int64_t steps_per_epoch = 0;
  int64_t total_steps = 0;
  double wall_time_s = 0;    // seconds of training since the run started (pauses excluded)
  double loss = 0;           // the loss that was optimised (boosted when γ > 0)
  double loss_standard = 0;  // plain InfoNCE on the same logits (no extra pass)
  double lr = 0;
  double logit_scale = 0;  // s = exp(logit_scale), after clamping
  double grad_norm = 0;    // full-parameter L2 norm before clipping
  // What `loss` is made of when it has more than the global term (a framework's terms, the token
  // term): Σ weight · value = loss. Empty for plain HN-CLIP.
  std::vector<LossTerm> loss_terms;
  // A data-parallel run's every rank, in rank order, as of the step's start; empty in one process
  // and on a run's first step of an epoch.
  std::vector<RankThroughput> ranks;
};

// One gradient probe (every --probe-every optimiser steps; see train/gradient_probe.h).
struct ProbeEvent {
  int64_t step = 0;  // the optimiser step whose batch was probed (before its update)
  int epoch = 0;
  double loss_standard = 0;
  double loss_boosted = 0;
  double grad_norm_standard = 0;
  double grad_norm_boosted = 0;
  double grad_ratio = 0;   // boosted / standard; inf when the standard gradient is 0
  double grad_cosine = 0;  // NaN when either gradient is exactly 0
  // Where the gradient goes (train/gradient_probe.h negative_gradient_mass): per Ḡ hardness
  // bucket (<0.5, 0.5-0.7, 0.7-0.8, 0.8-0.9, >=0.9) the share of the negatives' softmax mass
  // Σ p_j, both directions pooled, under the plain and the boosted logits. Empty: not recorded.
  std::vector<double> mass_share_plain;
  std::vector<double> mass_share_boosted;
};

// Ḡ of one fixed training batch (the same caption ids every epoch), from the text encoder Ḡ is
// taken from (live or frozen), at the start (epoch 0) and after every epoch (paper Fig. A5).
struct GbarSnapshotEvent {
  int epoch = 0;
  int batch = 0;                  // index among the run's snapshot batches
  std::vector<int64_t> captions;  // caption ids, in matrix order
  std::vector<float> matrix;      // B×B row-major, diagonal 0
  float max_value = 0;            // largest off-diagonal entry, at (max_i, max_j), max_i < max_j
  int64_t max_i = 0, max_j = 0;
};

struct EvalEvent {
  int epoch = 0;  // 0 = the starting point, before any step
  int64_t step = 0;
  std::string split;
  RetrievalResult t2i;
  RetrievalResult i2t;
  double mean_r1() const { return 0.5 * (t2i.recall_at(1) + i2t.recall_at(1)); }
};

struct CheckpointEvent {
  int epoch = 0;
  int64_t step = 0;
  std::string path;
  double mean_r1 = 0;
};

// Run status as stored: queued, running, finished, failed, stopped, interrupted.
struct StatusEvent {
  std::string status;
  std::string message;
};

}  // namespace hnclip

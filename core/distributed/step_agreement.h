#pragma once
// agree_on_step: the one small collective at the start of every data-parallel step. It settles
// whether the run stops here (a stop request on any rank stops every rank at the same step, so
// that none is left waiting in a collective) and hands every rank each rank's pace so far, so
// that rank 0 can show per-rank throughput live without a collective of its own.

#include <vector>

namespace hnclip {

class ProcessGroup;

// One rank's work so far (over whatever period the caller counts: the trainer counts the epoch).
struct RankProgress {
  double rows = 0;                // training rows this rank encoded
  double seconds = 0;             // wall-clock seconds of training
  double collective_seconds = 0;  // of those, in collectives (ProcessGroup::collective_seconds)
};

struct StepAgreement {
  bool stop = false;                 // some rank asked to stop
  std::vector<RankProgress> ranks;   // every rank's progress, in rank order
};

// Collective: every rank calls it once per step. Throws DistributedError when a peer is lost.
StepAgreement agree_on_step(ProcessGroup& group, bool stop, const RankProgress& mine);

}  // namespace hnclip

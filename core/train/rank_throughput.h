#pragma once
// RankThroughput: one rank's pace in a data-parallel run, reported with every step of rank 0 so
// that the Train tab and the CLI can show each rank live. Over the epoch so far: the rows it
// encoded per second of its own computing (its time outside collectives), and the share of its
// time spent in collectives (transfers, and waiting for slower ranks). A slow rank shows a lower
// rate and a smaller share; the ranks waiting for it, larger shares.
// No LibTorch here: the CLI and the widgets read it.

namespace hnclip {

struct RankThroughput {
  int rank = 0;
  double images_per_second = 0;    // rows / (seconds − collective seconds)
  double collective_fraction = 0;  // collective seconds / seconds, in [0, 1]
};

}  // namespace hnclip

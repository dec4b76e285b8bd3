#pragma once
// How the Retrieval tab marks one run's top-k results for one query: which results are the query's
// ground truth (outlined green), which are near-twins (a retrieved image whose caption is among
// the query caption's nearest neighbours, or for image queries a retrieved caption among the
// ground-truth captions' neighbours), and what to say about the ground truth's rank when it is
// outside the top k. Pure functions of plain values: tested without any widget.

#include <cstdint>
#include <set>
#include <vector>

#include <QString>

namespace hnclip::gui {

struct RetrievalMark {
  int64_t id = 0;    // candidate id (image for t2i, caption for i2t)
  int position = 0;  // 1-based position in the shown list
  bool ground_truth = false;
  bool near_twin = false;  // never set on a ground-truth result
};

struct RetrievalMarks {
  std::vector<RetrievalMark> items;
  int64_t ground_truth_rank = 0;    // 1-based rank of the best ground truth (0 = unknown)
  bool ground_truth_shown = false;  // some ground truth is among the items
  QString rank_note;  // "ground truth at rank 52" when outside the shown items, else ""
};

// `retrieved`: the shown ids, best first; `ground_truth`: the query's correct ids; `rank`: the
// stored 1-based rank of its best ground truth (0 = unknown: ad-hoc query); `near_twins`:
// candidate ids counted as near-twins of the ground truth.
RetrievalMarks mark_retrieval(const std::vector<int64_t>& retrieved,
                              const std::vector<int64_t>& ground_truth, int64_t rank,
                              const std::set<int64_t>& near_twins);

// The candidate ids that are near-twins of a query's ground truth, from caption neighbours:
// t2i (`query_is_caption`): the images of the query caption's neighbour captions, less the
// ground-truth image; i2t: the neighbour captions of the ground-truth captions, less those.
// `neighbor_captions`: the neighbour caption ids (of the query caption, or of all ground-truth
// captions); `caption_image`: caption -> image of the split.
std::set<int64_t> near_twin_candidates(bool query_is_caption,
                                       const std::vector<int64_t>& neighbor_captions,
                                       const std::vector<int64_t>& ground_truth,
                                       const std::vector<int64_t>& caption_image);

}  // namespace hnclip::gui

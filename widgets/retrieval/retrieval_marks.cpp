#include "widgets/retrieval/retrieval_marks.h"

#include <algorithm>

namespace hnclip::gui {

RetrievalMarks mark_retrieval(const std::vector<int64_t>& retrieved,
                              const std::vector<int64_t>& ground_truth, int64_t rank,
                              const std::set<int64_t>& near_twins) {
  RetrievalMarks out;
  out.ground_truth_rank = rank;
  const std::set<int64_t> truth(ground_truth.begin(), ground_truth.end());
  int position = 0;
  for (const int64_t id : retrieved) {
    RetrievalMark m;
    m.id = id;
    m.position = ++position;
    m.ground_truth = truth.count(id) > 0;
    m.near_twin = !m.ground_truth && near_twins.count(id) > 0;
    out.ground_truth_shown |= m.ground_truth;
    out.items.push_back(m);
  }
  if (!out.ground_truth_shown && rank > 0) {
    out.rank_note = QStringLiteral("ground truth at rank %1").arg(rank);
  }
  return out;
}

std::set<int64_t> near_twin_candidates(bool query_is_caption,
                                       const std::vector<int64_t>& neighbor_captions,
                                       const std::vector<int64_t>& ground_truth,
                                       const std::vector<int64_t>& caption_image) {
  std::set<int64_t> out;
  const std::set<int64_t> truth(ground_truth.begin(), ground_truth.end());
  for (const int64_t c : neighbor_captions) {
    if (c < 0 || c >= static_cast<int64_t>(caption_image.size())) continue;
    const int64_t id = query_is_caption ? caption_image[static_cast<size_t>(c)] : c;
    if (!truth.count(id)) out.insert(id);
  }
  return out;
}

}  // namespace hnclip::gui

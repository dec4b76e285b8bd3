#include "data/synthetic_segments.h"

#include <algorithm>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "data/synthetic_caption.h"
#include "text/caption_sentences.h"

namespace hnclip {

std::vector<ImageSegment> synthetic_segments(const Scene& scene, const SyntheticRenderer& renderer,
                                             const std::string& caption) {
  Scene empty = scene;
  empty.objects.clear();
  const cv::Mat background = renderer.render(empty);
  const auto full = caption_sentences(synthetic_caption(scene));
  const auto given = caption_sentences(caption);
  const int cell = renderer.image_size() / kSceneGridSide;
  std::vector<ImageSegment> out;
  for (size_t i = 0; i < scene.objects.size(); ++i) {
    // The object's sentence in the full caption is 1 + i; a partial caption (the pretrain
    // split's) may lack it or hold it at another index.
    const auto found = std::find(given.begin(), given.end(), full.at(1 + i));
    if (found == given.end()) continue;
    Scene alone = empty;
    alone.objects = {scene.objects[i]};
    cv::Mat diff, channels[3];
    cv::absdiff(renderer.render(alone), background, diff);
    // Any change, in any channel (a grey conversion could round a small change away) ...
    cv::split(diff, channels);
    const cv::Mat changed = cv::max(cv::max(channels[0], channels[1]), channels[2]) > 0;
    // ... within the object's own cell: anti-aliasing can tint one pixel column of the next cell
    // by a few levels, which would put a whole neighbouring patch into GOAL's patch term.
    const int col = scene.objects[i].cell % kSceneGridSide, row = scene.objects[i].cell / kSceneGridSide;
    const cv::Rect cell_rect(col * cell, row * cell, cell, cell);
    const cv::Rect r = cv::boundingRect(changed(cell_rect)) + cell_rect.tl();
    ImageSegment seg;
    seg.box = {static_cast<double>(r.x), static_cast<double>(r.y), static_cast<double>(r.x + r.width),
               static_cast<double>(r.y + r.height)};
    seg.sentence = static_cast<int64_t>(found - given.begin());
    out.push_back(seg);
  }
  return out;
}

nlohmann::ordered_json synthetic_segment_entry(const Scene& scene, const SyntheticRenderer& renderer,
                                               const std::string& image, const std::string& caption) {
  const auto sentences = caption_sentences(caption);
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& s : synthetic_segments(scene, renderer, caption)) {
    list.push_back({{"caption", sentences.at(static_cast<size_t>(s.sentence))},
                    {"bbox_coordinates", {{"x1", s.box.x1}, {"y1", s.box.y1}, {"x2", s.box.x2}, {"y2", s.box.y2}}}});
  }
  return {{"original_filename", image}, {"segment", list}};
}

}  // namespace hnclip

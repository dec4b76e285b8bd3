#pragma once
// GOAL's segments: crop boxes of an image, each matched to one sentence of the image's caption,
// which GOAL (Global-local Object Alignment Learning) trains against its global loss. A user
// supplies them as a JSON sidecar in GOAL's own training layout (its DLoader reads the same keys):
//
//   [ { "original_filename": "images/0001.jpg",           the image, as the benchmark lists it
//                                                          (absolute) or relative to the sidecar
//       "original_caption": "A red car. It is parked.",   optional: which of the image's captions
//                                                          the sentences come from (default: its
//                                                          first caption)
//       "segment": [
//         { "caption": "It is parked",                    the sentence, as text (GOAL's key) ...
//           "sentence": 1,                                ... or as its 0-based index (one of the
//                                                          two); sentences split at ". "
//                                                          (text/caption_sentences.h)
//           "bbox_coordinates": {"x1": 10, "y1": 20, "x2": 200, "y2": 120},
//                                                          pixels of the image; x2, y2 exclusive;
//                                                          GOAL's "width" / "height" keys are
//                                                          ignored
//           "similarity_score": 28.7,                     optional; GOAL trains on the image's
//                                                          highest-scoring segment
//           "filename": "crops/0001_3.png" } ] } ]        optional crop image (relative to the
//                                                          sidecar); absent: cut by the box
//
// Everything is checked before a run is recorded: an image the benchmark does not have, a box
// outside its image or empty, a sentence index out of range or a sentence text the caption does
// not contain, a missing crop file. Each problem names the sidecar and the line of its entry or
// segment ("<file>:<line>: entry 3 (images/0001.jpg), segment 2: ..."); all are thrown together
// as one DataError (data/data_problems.h). Threading: a free function without state.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "data/sample.h"

namespace hnclip {

struct SegmentBox {
  double x1 = 0, y1 = 0, x2 = 0, y2 = 0;  // pixels of the original image; x2, y2 exclusive
};

struct ImageSegment {
  SegmentBox box;
  int64_t caption = 0;   // which caption of the image (index into Sample::captions)
  int64_t sentence = 0;  // index into caption_sentences(that caption)
  double score = 0;      // similarity_score (0 when the file gives none)
  std::string crop;      // absolute path of a crop image; "" = cut from the image by the box
};

// The segments of each image the file lists, by the image's absolute path (as Sample::image
// gives it), in file order. `samples` are the benchmark's samples of every split: an image none
// of them has is an error, wherever it would be used. Throws DataError as described above.
using SegmentsByImage = std::map<std::string, std::vector<ImageSegment>>;
SegmentsByImage read_goal_segments(const std::filesystem::path& file,
                                   const std::vector<Sample>& samples);

// The segment GOAL trains an image on: its highest similarity_score (the first of equal ones);
// nullptr for an image without segments.
const ImageSegment* goal_training_segment(const std::vector<ImageSegment>& segments);

}  // namespace hnclip

#include "data/goal_segments.h"

#include <cmath>
#include <map>
#include <sstream>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "data/benchmark.h"
#include "data/data_file.h"
#include "data/data_problems.h"
#include "data/image_file_check.h"
#include "text/caption_sentences.h"

namespace hnclip {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

constexpr const char* kImageKey = "original_filename";
constexpr const char* kCaptionKey = "original_caption";
constexpr const char* kSegmentsKey = "segment";
constexpr const char* kSentenceTextKey = "caption";
constexpr const char* kSentenceIndexKey = "sentence";
constexpr const char* kBoxKey = "bbox_coordinates";
constexpr const char* kScoreKey = "similarity_score";
constexpr const char* kCropKey = "filename";

// Every object of the document in pre-order, the order of their opening braces in the text.
void collect_objects(const json& j, std::vector<const json*>& out) {
  if (j.is_object()) {
    out.push_back(&j);
    for (const auto& [k, v] : j.items()) collect_objects(v, out);
  } else if (j.is_array()) {
    for (const auto& v : j) collect_objects(v, out);
  }
}

// A sentence as GOAL's files write it may differ from caption_sentences' in white space and a
// final full stop; compare without them.
std::string sentence_key(const std::string& s) {
  std::istringstream words(s);
  std::string w, out;
  while (words >> w) out += (out.empty() ? "" : " ") + w;
  while (!out.empty() && out.back() == '.') out.pop_back();
  return out;
}

std::string number_text(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

}  // namespace

SegmentsByImage read_goal_segments(const fs::path& file, const std::vector<Sample>& samples) {
  const std::string text = read_data_file(file, "GOAL segment file");
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    throw DataError(file.string() + ":" + std::to_string(line_at(text, e.byte > 0 ? e.byte - 1 : 0)) +
                    ": malformed JSON: " + e.what());
  } catch (const json::exception& e) {  // out_of_range: a number too large ("1e999")
    throw DataError(file.string() + ": malformed JSON: " + e.what());
  }
  if (!doc.is_array()) {
    throw DataError(file.string() + ": expected an array of images with their \"segment\" lists "
                    "(GOAL's training layout), found " + std::string(doc.type_name()));
  }
  // Lines of the objects, when the text's braces and the parsed objects line up (they do unless
  // a duplicate key dropped an object); otherwise messages name the entry without a line.
  std::vector<const json*> objects;
  collect_objects(doc, objects);
  const auto brace_lines = json_object_lines(text);
  std::unordered_map<const json*, int> line_of;
  if (brace_lines.size() == objects.size()) {
    for (size_t i = 0; i < objects.size(); ++i) line_of[objects[i]] = brace_lines[i];
  }
  auto where = [&](const json& node) {
    const auto it = line_of.find(&node);
    return file.string() + (it == line_of.end() ? "" : ":" + std::to_string(it->second)) + ": ";
  };

  std::unordered_map<std::string, size_t> sample_of;  // absolute, lexically normal image path
  for (size_t i = 0; i < samples.size(); ++i)
    sample_of.emplace(fs::path(samples[i].image).lexically_normal().string(), i);
  const fs::path base = fs::absolute(file).parent_path();

  DataProblems problems("GOAL segment file " + file.string());
  SegmentsByImage out;
  std::vector<int> listed_at(samples.size(), 0);  // entry number that listed the image (1-based)
  int entry_number = 0;
  for (const auto& entry : doc) {
    ++entry_number;
    const std::string entry_name = "entry " + std::to_string(entry_number);
    if (!entry.is_object()) {
      problems.add(file.string() + ": " + entry_name + ": must be an object, not " + entry.type_name());
      continue;
    }
    const std::string at = where(entry) + entry_name;
    const auto image_it = entry.find(kImageKey);
    if (image_it == entry.end() || !image_it->is_string()) {
      problems.add(at + ": key \"" + kImageKey + "\": missing or not a string");
      continue;
    }
    const std::string& image_name = image_it->get_ref<const std::string&>();
    const fs::path image_path = fs::path(image_name).is_absolute()
                                    ? fs::path(image_name).lexically_normal()
                                    : (base / image_name).lexically_normal();
    const auto sample_it = sample_of.find(image_path.string());
    if (sample_it == sample_of.end()) {
      problems.add(at + ": key \"" + kImageKey + "\": " + image_name +
                   " is not an image of the benchmark (looked for " + image_path.string() + ")");
      continue;
    }
    const size_t s = sample_it->second;
    const Sample& sample = samples[s];
    const std::string entry_at = at + " (" + image_name + ")";
    if (listed_at[s] != 0) {
      problems.add(entry_at + ": the image is listed twice (first as entry " +
                   std::to_string(listed_at[s]) + ")");
      continue;
    }
    listed_at[s] = entry_number;

    int64_t caption = 0;
    if (const auto c = entry.find(kCaptionKey); c != entry.end()) {
      bool found = false;
      if (c->is_string()) {
        for (size_t k = 0; k < sample.captions.size() && !found; ++k) {
          if (sentence_key(sample.captions[k]) == sentence_key(c->get_ref<const std::string&>())) {
            caption = static_cast<int64_t>(k);
            found = true;
          }
        }
      }
      if (!found) {
        problems.add(entry_at + ": key \"" + kCaptionKey + "\": not one of the image's " +
                     std::to_string(sample.captions.size()) + " caption(s)");
        continue;
      }
    }
    const auto sentences = caption_sentences(sample.captions[static_cast<size_t>(caption)]);

    const auto list = entry.find(kSegmentsKey);
    if (list == entry.end() || !list->is_array()) {
      problems.add(entry_at + ": key \"" + kSegmentsKey + "\": missing or not an array");
      continue;
    }
    std::string size_problem;
    const ImageHeader header = read_image_header(sample.image, &size_problem);
    if (!size_problem.empty()) {
      problems.add(entry_at + ": " + size_problem);
      continue;
    }
    int segment_number = 0;
    for (const auto& seg : *list) {
      ++segment_number;
      const std::string seg_at = (seg.is_object() ? where(seg) : file.string() + ": ") +
                                 entry_name + " (" + image_name + "), segment " +
                                 std::to_string(segment_number) + ": ";
      if (!seg.is_object()) {
        problems.add(seg_at + "must be an object, not " + seg.type_name());
        continue;
      }
      ImageSegment out_seg;
      out_seg.caption = caption;
      // The sentence: by text (GOAL's key) or by index, exactly one of them.
      const auto by_text = seg.find(kSentenceTextKey), by_index = seg.find(kSentenceIndexKey);
      if ((by_text == seg.end()) == (by_index == seg.end())) {
        problems.add(seg_at + "give the sentence as \"" + kSentenceTextKey + "\" (its text) or \"" +
                     kSentenceIndexKey + "\" (its index), exactly one of them");
        continue;
      }
      if (by_index != seg.end()) {
        if (!by_index->is_number_integer()) {
          problems.add(seg_at + "key \"" + kSentenceIndexKey + "\": must be an integer, not " +
                       by_index->type_name());
          continue;
        }
        const int64_t k = by_index->get<int64_t>();
        if (k < 0 || k >= static_cast<int64_t>(sentences.size())) {
          problems.add(seg_at + "key \"" + kSentenceIndexKey + "\": sentence index " +
                       std::to_string(k) + " is out of range: the caption has " +
                       std::to_string(sentences.size()) + " sentence(s), 0.." +
                       std::to_string(static_cast<int64_t>(sentences.size()) - 1));
          continue;
        }
        out_seg.sentence = k;
      } else {
        if (!by_text->is_string()) {
          problems.add(seg_at + "key \"" + kSentenceTextKey + "\": must be a string, not " +
                       by_text->type_name());
          continue;
        }
        const std::string wanted = sentence_key(by_text->get_ref<const std::string&>());
        int64_t found = -1;
        for (size_t k = 0; k < sentences.size() && found < 0; ++k) {
          if (sentence_key(sentences[k]) == wanted) found = static_cast<int64_t>(k);
        }
        if (found < 0) {
          problems.add(seg_at + "key \"" + kSentenceTextKey + "\": \"" +
                       by_text->get_ref<const std::string&>() +
                       "\" is not a sentence of the image's caption (sentences are split at \". \")");
          continue;
        }
        out_seg.sentence = found;
      }
      // The box, inside the image and not empty.
      const auto box = seg.find(kBoxKey);
      if (box == seg.end() || !box->is_object()) {
        problems.add(seg_at + "key \"" + kBoxKey + "\": missing or not an object of x1, y1, x2, y2");
        continue;
      }
      double v[4];
      std::string box_problem;
      const char* names[4] = {"x1", "y1", "x2", "y2"};
      for (int k = 0; k < 4 && box_problem.empty(); ++k) {
        const auto it = box->find(names[k]);
        if (it == box->end() || !it->is_number() || !std::isfinite(it->get<double>())) {
          box_problem = std::string(names[k]) + " missing or not a finite number";
        } else {
          v[k] = it->get<double>();
        }
      }
      if (box_problem.empty()) {
        const double w = static_cast<double>(header.width), h = static_cast<double>(header.height);
        if (v[0] < 0 || v[1] < 0 || v[2] > w || v[3] > h) {
          box_problem = "(" + number_text(v[0]) + ", " + number_text(v[1]) + ")-(" +
                        number_text(v[2]) + ", " + number_text(v[3]) + ") is outside the image (" +
                        std::to_string(header.width) + " x " + std::to_string(header.height) + ")";
        } else if (!(v[0] < v[2] && v[1] < v[3])) {
          box_problem = "empty box: x1 < x2 and y1 < y2 are needed";
        }
      }
      if (!box_problem.empty()) {
        problems.add(seg_at + "key \"" + kBoxKey + "\": " + box_problem);
        continue;
      }
      out_seg.box = {v[0], v[1], v[2], v[3]};
      if (const auto score = seg.find(kScoreKey); score != seg.end()) {
        if (!score->is_number() || !std::isfinite(score->get<double>())) {
          problems.add(seg_at + "key \"" + kScoreKey + "\": must be a finite number");
          continue;
        }
        out_seg.score = score->get<double>();
      }
      if (const auto crop = seg.find(kCropKey); crop != seg.end()) {
        if (!crop->is_string() || is_blank_text(crop->get_ref<const std::string&>())) {
          problems.add(seg_at + "key \"" + kCropKey + "\": must be a crop image's path");
          continue;
        }
        const fs::path crop_path = (base / crop->get_ref<const std::string&>()).lexically_normal();
        if (std::string bad = image_file_problem(crop_path); !bad.empty()) {
          problems.add(seg_at + "key \"" + kCropKey + "\": " + bad);
          continue;
        }
        out_seg.crop = crop_path.string();
      }
      out[sample.image].push_back(std::move(out_seg));
    }
  }
  problems.throw_if_any();
  return out;
}

const ImageSegment* goal_training_segment(const std::vector<ImageSegment>& segments) {
  const ImageSegment* best = nullptr;
  for (const auto& s : segments) {
    if (!best || s.score > best->score) best = &s;
  }
  return best;
}

}  // namespace hnclip

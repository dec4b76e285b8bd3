#include "data/synthetic_caption.h"

#include <stdexcept>

namespace hnclip {

namespace {

const char* count_word(int n) {
  static const char* const words[] = {"no", "one", "two", "three", "four",
                                      "five", "six", "seven", "eight", "nine"};
  return words[n];
}

std::string plural(SceneShape s, int n) {
  std::string w = scene_name(s);
  if (n == 1) return w;
  return s == SceneShape::Cross ? w + "es" : w + "s";
}

// Where a cell is, in words; every phrase names the row and the column.
const char* position_phrase(int cell) {
  static const char* const phrases[kSceneCellCount] = {
      "in the top left corner",    "at the top in the middle",    "in the top right corner",
      "on the left in the middle", "in the very centre",          "on the right in the middle",
      "in the bottom left corner", "at the bottom in the middle", "in the bottom right corner",
  };
  return phrases[cell];
}

const char* texture_phrase(SceneTexture t) {
  return t == SceneTexture::Solid ? "that is solid and filled" : "that is hollow, only outlined";
}

std::string object_sentence(const SceneObject& o) {
  std::string s = position_phrase(o.cell);
  s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s + " there is a " + scene_name(o.size) + " " + scene_name(o.colour) + " " + scene_name(o.shape) + " " +
         texture_phrase(o.texture) + ".";
}

std::string background_sentence(const Scene& scene) {
  return std::string("The background is plain ") + scene_name(scene.background) + ".";
}

std::string summary_sentence(const Scene& scene) {
  const int n = static_cast<int>(scene.objects.size());
  std::string s = std::string("This image shows ") + count_word(n) + (n == 1 ? " object" : " objects") + " on a " +
                  scene_name(scene.background) + " background";
  if (n == 0) return s + ".";
  std::vector<std::string> parts;
  for (int shape = 0; shape < kSceneShapeCount; ++shape) {
    int k = 0;
    for (const auto& o : scene.objects) k += static_cast<int>(o.shape) == shape ? 1 : 0;
    if (k > 0) parts.push_back(std::string(count_word(k)) + " " + plural(static_cast<SceneShape>(shape), k));
  }
  s += ": ";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) s += i + 1 == parts.size() ? " and " : ", ";
    s += parts[i];
  }
  return s + ".";
}

}  // namespace

std::string synthetic_caption(const Scene& scene) {
  std::string c = summary_sentence(scene);
  for (const auto& o : scene.objects) c += " " + object_sentence(o);
  return c + " " + background_sentence(scene);
}

std::string synthetic_partial_caption(const Scene& scene, const std::vector<size_t>& objects) {
  std::string c;
  for (const size_t i : objects) {
    if (i >= scene.objects.size()) {
      throw std::out_of_range("synthetic_partial_caption: object index " + std::to_string(i) + " but the scene has " +
                              std::to_string(scene.objects.size()) + " objects");
    }
    c += object_sentence(scene.objects[i]) + " ";
  }
  return c + background_sentence(scene);
}

}  // namespace hnclip

#pragma once
// The scene model of the built-in `synthetic` benchmark and its deterministic generator.
// A scene is a flat background plus 1-4 objects, each in its own cell of a 3x3 grid, with a colour,
// shape, size and texture. Near-twins differ from their family's base scene in exactly one thing:
// one attribute of one object, the background, or the object count (one object removed or added).
//
// SceneRandom and SceneGenerator are plain values, not thread-safe; give each thread its own.
// Their output depends only on the seed, on every platform: draws come from std::mt19937_64 (whose
// sequence the standard fixes) mapped to ranges by hand, never through std::uniform_*_distribution
// (whose algorithms are implementation-defined).

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace hnclip {

enum class SceneColour : uint8_t { Red, Orange, Yellow, Green, Cyan, Blue, Purple, Brown };
enum class SceneShape : uint8_t { Circle, Square, Triangle, Cross };
enum class SceneSize : uint8_t { Small, Large };
enum class SceneTexture : uint8_t { Solid, Hollow };
enum class SceneBackground : uint8_t { Black, Grey, White };

constexpr int kSceneColourCount = 8;
constexpr int kSceneShapeCount = 4;
constexpr int kSceneSizeCount = 2;
constexpr int kSceneTextureCount = 2;
constexpr int kSceneBackgroundCount = 3;
constexpr int kSceneGridSide = 3;                             // cells per row and per column
constexpr int kSceneCellCount = kSceneGridSide * kSceneGridSide;
constexpr int kSceneMaxObjects = 4;                           // caption length is sized for this

// English words for captions ("red", "circle", "large", "hollow", "grey").
const char* scene_name(SceneColour c);
const char* scene_name(SceneShape s);
const char* scene_name(SceneSize s);
const char* scene_name(SceneTexture t);
const char* scene_name(SceneBackground b);

struct SceneObject {
  SceneColour colour = SceneColour::Red;
  SceneShape shape = SceneShape::Circle;
  SceneSize size = SceneSize::Small;
  SceneTexture texture = SceneTexture::Solid;
  int cell = 0;  // 0..8, row-major from the top left

  bool operator==(const SceneObject& o) const;
  bool operator!=(const SceneObject& o) const { return !(*this == o); }
};

struct Scene {
  SceneBackground background = SceneBackground::Grey;
  std::vector<SceneObject> objects;  // at most one per cell, always sorted by cell

  bool operator==(const Scene& o) const { return background == o.background && objects == o.objects; }
  bool operator!=(const Scene& o) const { return !(*this == o); }
};

// What a near-twin changes relative to its base scene.
enum class SceneChange : uint8_t { Colour, Shape, Size, Texture, Cell, Background, Count };
const char* scene_name(SceneChange c);

// Every single difference between two scenes, as changes: an object whose attributes differ counts
// each attribute; a different object count counts as one Count change only when the smaller scene
// equals the larger one minus one object. Anything else (several objects changed, objects that
// cannot be matched up) yields at least two entries. Twins of one family give exactly one.
std::vector<SceneChange> scene_differences(const Scene& a, const Scene& b);

// Seeded source of uniform integers with a platform-independent mapping.
class SceneRandom {
 public:
  explicit SceneRandom(uint64_t seed) : engine_(seed) {}
  // Uniform in [0, n) by rejection sampling on the raw 64-bit draws; n must be > 0.
  int64_t below(int64_t n);
  // Uniform in [lo, hi], inclusive.
  int64_t between(int64_t lo, int64_t hi) { return lo + below(hi - lo + 1); }
  // Uniform in [0, 1).
  double unit();

 private:
  std::mt19937_64 engine_;
};

// Mixes a seed with stream numbers into an independent seed (SplitMix64 finaliser), so that each
// split and each item can draw from its own stream.
uint64_t scene_seed(uint64_t seed, uint64_t stream_a, uint64_t stream_b = 0);

// Random scenes and near-twins.
class SceneGenerator {
 public:
  explicit SceneGenerator(uint64_t seed) : random_(seed) {}

  // A scene with min_objects..max_objects objects (1 <= min <= max <= kSceneMaxObjects) in
  // distinct random cells, every attribute uniform.
  Scene random_scene(int min_objects, int max_objects);

  // A scene that differs from `base` in exactly one change, none of those in `avoid` (e.g. the
  // family so far), with an object count kept within [min_objects, max_objects]. Throws
  // std::runtime_error if no such twin is found after many tries.
  Scene near_twin(const Scene& base, const std::vector<Scene>& avoid, int min_objects, int max_objects);

  // A non-empty random subset of the objects' indices (all of them when there is one), ascending.
  std::vector<size_t> random_subset(size_t object_count);

  SceneRandom& random() { return random_; }

 private:
  Scene try_twin(const Scene& base, int min_objects, int max_objects);
  SceneObject random_object(int cell);

  SceneRandom random_;
};

}  // namespace hnclip

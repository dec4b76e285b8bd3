#include "data/synthetic_scene.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace hnclip {

namespace {

constexpr int kTwinAttempts = 1000;  // a feasible twin is found in a handful; this bounds a bug
constexpr int kChangeKinds = 7;      // SceneChange values

void sort_by_cell(Scene& s) {
  std::sort(s.objects.begin(), s.objects.end(),
            [](const SceneObject& a, const SceneObject& b) { return a.cell < b.cell; });
}

std::vector<int> free_cells(const Scene& s) {
  std::vector<bool> used(kSceneCellCount, false);
  for (const auto& o : s.objects) used[static_cast<size_t>(o.cell)] = true;
  std::vector<int> out;
  for (int c = 0; c < kSceneCellCount; ++c) {
    if (!used[static_cast<size_t>(c)]) out.push_back(c);
  }
  return out;
}

// A value of an enum with `count` values other than `old`, uniformly.
template <typename E>
E other_value(SceneRandom& r, E old, int count) {
  auto v = static_cast<int>(r.below(count - 1));
  if (v >= static_cast<int>(old)) ++v;
  return static_cast<E>(v);
}

void push_attribute_differences(const SceneObject& a, const SceneObject& b, std::vector<SceneChange>& out) {
  if (a.colour != b.colour) out.push_back(SceneChange::Colour);
  if (a.shape != b.shape) out.push_back(SceneChange::Shape);
  if (a.size != b.size) out.push_back(SceneChange::Size);
  if (a.texture != b.texture) out.push_back(SceneChange::Texture);
}

}  // namespace

const char* scene_name(SceneColour c) {
  static const char* const names[kSceneColourCount] = {"red",  "orange", "yellow", "green",
                                                       "cyan", "blue",   "purple", "brown"};
  return names[static_cast<int>(c)];
}

const char* scene_name(SceneShape s) {
  static const char* const names[kSceneShapeCount] = {"circle", "square", "triangle", "cross"};
  return names[static_cast<int>(s)];
}

const char* scene_name(SceneSize s) { return s == SceneSize::Small ? "small" : "large"; }

const char* scene_name(SceneTexture t) { return t == SceneTexture::Solid ? "solid" : "hollow"; }

const char* scene_name(SceneBackground b) {
  static const char* const names[kSceneBackgroundCount] = {"black", "grey", "white"};
  return names[static_cast<int>(b)];
}

const char* scene_name(SceneChange c) {
  static const char* const names[kChangeKinds] = {"colour", "shape", "size", "texture",
                                                  "cell",   "background", "count"};
  return names[static_cast<int>(c)];
}

bool SceneObject::operator==(const SceneObject& o) const {
  return colour == o.colour && shape == o.shape && size == o.size && texture == o.texture && cell == o.cell;
}

std::vector<SceneChange> scene_differences(const Scene& a, const Scene& b) {
  std::vector<SceneChange> out;
  if (a.background != b.background) out.push_back(SceneChange::Background);
  if (a.objects.size() != b.objects.size()) {
    const Scene& small = a.objects.size() < b.objects.size() ? a : b;
    const Scene& large = a.objects.size() < b.objects.size() ? b : a;
    const bool subset = std::all_of(small.objects.begin(), small.objects.end(), [&](const SceneObject& o) {
      return std::find(large.objects.begin(), large.objects.end(), o) != large.objects.end();
    });
    out.push_back(SceneChange::Count);
    // More than one object added/removed, or other objects changed too: several differences.
    if (!subset || large.objects.size() - small.objects.size() != 1) out.push_back(SceneChange::Count);
    return out;
  }
  // Same count: match objects by cell; what is left unmatched on each side has moved.
  std::vector<const SceneObject*> only_a, only_b;
  for (const auto& oa : a.objects) {
    const auto it = std::find_if(b.objects.begin(), b.objects.end(),
                                 [&](const SceneObject& ob) { return ob.cell == oa.cell; });
    if (it == b.objects.end()) {
      only_a.push_back(&oa);
    } else {
      push_attribute_differences(oa, *it, out);
    }
  }
  for (const auto& ob : b.objects) {
    const bool matched = std::any_of(a.objects.begin(), a.objects.end(),
                                     [&](const SceneObject& oa) { return oa.cell == ob.cell; });
    if (!matched) only_b.push_back(&ob);
  }
  for (size_t i = 0; i < only_a.size(); ++i) {
    out.push_back(SceneChange::Cell);
    push_attribute_differences(*only_a[i], *only_b[i], out);
  }
  return out;
}

int64_t SceneRandom::below(int64_t n) {
  if (n <= 0) throw std::invalid_argument("SceneRandom::below: n must be positive, got " + std::to_string(n));
  const uint64_t range = static_cast<uint64_t>(n);
  // Largest multiple of range that fits: draws at or above it would bias the low values.
  const uint64_t limit = std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % range;
  uint64_t x;
  do {
    x = engine_();
  } while (x >= limit);
  return static_cast<int64_t>(x % range);
}

double SceneRandom::unit() {
  // The top 53 bits fill a double's mantissa exactly.
  return static_cast<double>(engine_() >> 11) * (1.0 / 9007199254740992.0);
}

uint64_t scene_seed(uint64_t seed, uint64_t stream_a, uint64_t stream_b) {
  auto mix = [](uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  return mix(mix(mix(seed) ^ stream_a) ^ stream_b);
}

SceneObject SceneGenerator::random_object(int cell) {
  SceneObject o;
  o.colour = static_cast<SceneColour>(random_.below(kSceneColourCount));
  o.shape = static_cast<SceneShape>(random_.below(kSceneShapeCount));
  o.size = static_cast<SceneSize>(random_.below(kSceneSizeCount));
  o.texture = static_cast<SceneTexture>(random_.below(kSceneTextureCount));
  o.cell = cell;
  return o;
}

Scene SceneGenerator::random_scene(int min_objects, int max_objects) {
  if (min_objects < 1 || max_objects > kSceneMaxObjects || min_objects > max_objects) {
    throw std::invalid_argument("SceneGenerator::random_scene: object count range [" +
                                std::to_string(min_objects) + ", " + std::to_string(max_objects) +
                                "] is not within [1, " + std::to_string(kSceneMaxObjects) + "]");
  }
  Scene s;
  s.background = static_cast<SceneBackground>(random_.below(kSceneBackgroundCount));
  const auto n = random_.between(min_objects, max_objects);
  // Partial Fisher-Yates shuffle of the cells picks n distinct ones.
  std::vector<int> cells(kSceneCellCount);
  for (int c = 0; c < kSceneCellCount; ++c) cells[static_cast<size_t>(c)] = c;
  for (int64_t i = 0; i < n; ++i) {
    const auto j = random_.between(i, kSceneCellCount - 1);
    std::swap(cells[static_cast<size_t>(i)], cells[static_cast<size_t>(j)]);
    s.objects.push_back(random_object(cells[static_cast<size_t>(i)]));
  }
  sort_by_cell(s);
  return s;
}

Scene SceneGenerator::try_twin(const Scene& base, int min_objects, int max_objects) {
  Scene t = base;
  const auto change = static_cast<SceneChange>(random_.below(kChangeKinds));
  const auto n = static_cast<int>(t.objects.size());
  auto& o = t.objects[static_cast<size_t>(random_.below(n))];
  switch (change) {
    case SceneChange::Colour: o.colour = other_value(random_, o.colour, kSceneColourCount); break;
    case SceneChange::Shape: o.shape = other_value(random_, o.shape, kSceneShapeCount); break;
    case SceneChange::Size: o.size = other_value(random_, o.size, kSceneSizeCount); break;
    case SceneChange::Texture: o.texture = other_value(random_, o.texture, kSceneTextureCount); break;
    case SceneChange::Cell: {
      const auto cells = free_cells(t);
      o.cell = cells[static_cast<size_t>(random_.below(static_cast<int64_t>(cells.size())))];
      break;
    }
    case SceneChange::Background:
      t.background = other_value(random_, t.background, kSceneBackgroundCount);
      break;
    case SceneChange::Count: {
      const bool can_add = n < max_objects;
      const bool can_remove = n > min_objects;
      if (!can_add && !can_remove) return base;  // infeasible here; the caller draws again
      if (can_add && (!can_remove || random_.below(2) == 0)) {
        const auto cells = free_cells(t);
        t.objects.push_back(random_object(cells[static_cast<size_t>(random_.below(static_cast<int64_t>(cells.size())))]));
      } else {
        t.objects.erase(t.objects.begin() + random_.below(n));
      }
      break;
    }
  }
  sort_by_cell(t);
  return t;
}

Scene SceneGenerator::near_twin(const Scene& base, const std::vector<Scene>& avoid, int min_objects,
                                int max_objects) {
  for (int attempt = 0; attempt < kTwinAttempts; ++attempt) {
    Scene t = try_twin(base, min_objects, max_objects);
    if (t == base) continue;
    if (std::find(avoid.begin(), avoid.end(), t) != avoid.end()) continue;
    return t;
  }
  throw std::runtime_error("SceneGenerator::near_twin: no new twin found after " + std::to_string(kTwinAttempts) +
                           " attempts (object count range [" + std::to_string(min_objects) + ", " +
                           std::to_string(max_objects) + "])");
}

std::vector<size_t> SceneGenerator::random_subset(size_t object_count) {
  std::vector<size_t> out;
  if (object_count == 0) return out;
  if (object_count == 1) return {0};
  // A proper subset: 1 .. n-1 objects, so it is always shorter than the full caption.
  const auto k = random_.between(1, static_cast<int64_t>(object_count) - 1);
  std::vector<size_t> idx(object_count);
  for (size_t i = 0; i < object_count; ++i) idx[i] = i;
  for (int64_t i = 0; i < k; ++i) {
    const auto j = random_.between(i, static_cast<int64_t>(object_count) - 1);
    std::swap(idx[static_cast<size_t>(i)], idx[static_cast<size_t>(j)]);
  }
  out.assign(idx.begin(), idx.begin() + k);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace hnclip

#pragma once
// Dense captions of the built-in benchmark's scenes: a summary sentence (how many objects, of which
// shapes, on which background), one detailed sentence per object in reading order (position in
// words, size, colour, shape, texture), then a background sentence. A caption is a pure function
// of the scene, so near-twins get captions that differ only in the words of their one change.
// Length: 63-91 words for 3-4 objects, always within the 94 words that fit a 96-token context
// with start and end tokens (checked in tests/core/data/test_synthetic_benchmark.cpp).
// Threading: free functions without state.

#include <cstddef>
#include <string>
#include <vector>

#include "data/synthetic_scene.h"

namespace hnclip {

// The full dense caption of a scene.
std::string synthetic_caption(const Scene& scene);

// A shorter caption describing only the objects at the given indices (ascending, into
// scene.objects) and the background; no summary, because its counts would not match the image.
// Throws std::out_of_range for an index past the objects.
std::string synthetic_partial_caption(const Scene& scene, const std::vector<size_t>& objects);

}  // namespace hnclip

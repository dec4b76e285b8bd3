// Throughput of ClipBpeTokenizer::encode on one thread: 1000 captions of 80 words drawn
// (std::mt19937_64, fixed seed) from a 240-word caption vocabulary with a few numbers, at context
// 77 (CLIP; long captions are cut, so BPE stops early) and 248 (Long-CLIP; whole captions).
// "cold" = first pass on a fresh tokenizer (every new word goes through BPE), "warm" = second
// pass (merge cache hits). Not part of the CTest suites; build and run by hand (bash, repo root):
//   g++ -std=c++17 -O2 -Icore tests/bench/clip_bpe_throughput.cpp core/text/*.cpp -lz -pthread -o
//   /tmp/cbt /tmp/cbt resources/bpe_simple_vocab_16e6.txt.gz

#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "text/clip_bpe_tokenizer.h"

namespace {

constexpr int kCaptions = 1000;
constexpr int kWordsPerCaption = 80;

const char* const kWords[] = {"a",
                              "an",
                              "the",
                              "of",
                              "in",
                              "on",
                              "with",
                              "and",
                              "is",
                              "are",
                              "at",
                              "near",
                              "next",
                              "to",
                              "from",
                              "by",
                              "under",
                              "over",
                              "behind",
                              "while",
                              "two",
                              "three",
                              "several",
                              "many",
                              "man",
                              "woman",
                              "child",
                              "children",
                              "people",
                              "person",
                              "dog",
                              "dogs",
                              "cat",
                              "cats",
                              "horse",
                              "horses",
                              "bird",
                              "birds",
                              "cow",
                              "sheep",
                              "elephant",
                              "giraffe",
                              "zebra",
                              "bear",
                              "train",
                              "bus",
                              "car",
                              "truck",
                              "bicycle",
                              "motorcycle",
                              "airplane",
                              "boat",
                              "street",
                              "road",
                              "city",
                              "building",
                              "tower",
                              "bridge",
                              "river",
                              "lake",
                              "ocean",
                              "beach",
                              "mountain",
                              "mountains",
                              "field",
                              "grass",
                              "tree",
                              "trees",
                              "forest",
                              "park",
                              "kitchen",
                              "bathroom",
                              "bedroom",
                              "living",
                              "room",
                              "table",
                              "chair",
                              "couch",
                              "bed",
                              "window",
                              "door",
                              "wall",
                              "floor",
                              "plate",
                              "pizza",
                              "sandwich",
                              "cake",
                              "banana",
                              "apple",
                              "orange",
                              "broccoli",
                              "hot",
                              "food",
                              "bowl",
                              "cup",
                              "glass",
                              "bottle",
                              "knife",
                              "fork",
                              "spoon",
                              "laptop",
                              "computer",
                              "keyboard",
                              "phone",
                              "television",
                              "clock",
                              "vase",
                              "flowers",
                              "umbrella",
                              "kite",
                              "frisbee",
                              "skateboard",
                              "surfboard",
                              "tennis",
                              "racket",
                              "baseball",
                              "bat",
                              "ball",
                              "player",
                              "players",
                              "game",
                              "snow",
                              "skis",
                              "skier",
                              "wave",
                              "water",
                              "sky",
                              "clouds",
                              "sunset",
                              "night",
                              "day",
                              "light",
                              "lights",
                              "red",
                              "blue",
                              "green",
                              "yellow",
                              "white",
                              "black",
                              "brown",
                              "gray",
                              "orange-colored",
                              "large",
                              "small",
                              "big",
                              "little",
                              "old",
                              "young",
                              "tall",
                              "short",
                              "wooden",
                              "metal",
                              "plastic",
                              "sitting",
                              "standing",
                              "walking",
                              "running",
                              "riding",
                              "holding",
                              "eating",
                              "playing",
                              "looking",
                              "flying",
                              "parked",
                              "covered",
                              "filled",
                              "lined",
                              "crowded",
                              "empty",
                              "busy",
                              "colorful",
                              "bright",
                              "dark",
                              "sunny",
                              "cloudy",
                              "rainy",
                              "snowy",
                              "front",
                              "top",
                              "side",
                              "middle",
                              "corner",
                              "background",
                              "foreground",
                              "view",
                              "picture",
                              "photo",
                              "image",
                              "close-up",
                              "shot",
                              "group",
                              "pair",
                              "couple",
                              "bunch",
                              "pile",
                              "row",
                              "line",
                              "sign",
                              "signs",
                              "traffic",
                              "stop",
                              "fire",
                              "hydrant",
                              "bench",
                              "fence",
                              "pole",
                              "tracks",
                              "station",
                              "airport",
                              "runway",
                              "harbor",
                              "dock",
                              "pier",
                              "shore",
                              "hill",
                              "valley",
                              "desert",
                              "jungle",
                              "garden",
                              "yard",
                              "sidewalk",
                              "crosswalk",
                              "intersection",
                              "highway",
                              "downtown",
                              "neighborhood",
                              "restaurant",
                              "cafe",
                              "market",
                              "store",
                              "shop",
                              "2",
                              "3",
                              "10",
                              "1990s",
                              "photographer's",
                              "it's",
                              "don't",
                              "they're",
                              "München",
                              "café"};

std::vector<std::string> make_captions() {
  std::mt19937_64 rng(20261130);
  const auto n = sizeof(kWords) / sizeof(kWords[0]);
  std::vector<std::string> out;
  for (int c = 0; c < kCaptions; ++c) {
    std::string s;
    for (int w = 0; w < kWordsPerCaption; ++w)
      s += std::string(kWords[rng() % n]) + (w % 12 == 11 ? ". " : " ");
    out.push_back(s);
  }
  return out;
}

struct Rate {
  double wall, cpu;  // captions per second of wall-clock and of this process's CPU time
};

Rate captions_per_second(const hnclip::ClipBpeTokenizer& tok,
                         const std::vector<std::string>& captions) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  size_t checksum = 0;
  for (const auto& c : captions) checksum += static_cast<size_t>(tok.encode(c)[5]);
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (checksum == 0) std::puts("");  // keeps the work observable
  const auto n = static_cast<double>(captions.size());
  return {n / wall, n / cpu};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s bpe_simple_vocab_16e6.txt.gz\n", argv[0]);
    return 2;
  }
  const auto captions = make_captions();
  for (int64_t context : {77, 248}) {
    const auto t0 = std::chrono::steady_clock::now();
    const hnclip::ClipBpeTokenizer tok(argv[1], context);
    const double load =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const Rate cold = captions_per_second(tok, captions);
    const Rate warm = captions_per_second(tok, captions);
    std::printf(
        "context %3lld: load %.0f ms; captions/s (wall | cpu): cold %.0f | %.0f, warm %.0f | %.0f"
        " (%d captions x %d words, 1 thread)\n",
        static_cast<long long>(context), 1000 * load, cold.wall, cold.cpu, warm.wall, warm.cpu,
        kCaptions, kWordsPerCaption);
  }
  return 0;
}

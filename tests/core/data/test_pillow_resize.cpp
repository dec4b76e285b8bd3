// Tests core/data/pillow_resize against Pillow itself (tests/core/reference/pillow_reference.py,
// run with Debian's Python and Pillow 9.4): identical 8-bit pixels for shrinking, enlarging,
// one-pass and mixed resizes of noise, gradients and a sharp-edged drawing, in RGB and grey. Also
// ImagePipeline's whole CLIP preprocessing against the same transform written with PIL + torch,
// and why this exists: OpenCV's INTER_CUBIC is far from Pillow on a shrink.

#include "data/pillow_resize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "data/image_pipeline.h"
#include "support/test_dirs.h"

namespace hnclip {
namespace {

using json = nlohmann::json;
using test::ScratchDir;

const std::string kReference = std::string(HNCLIP_REFERENCE_PYTHON) + " " + HNCLIP_TEST_SOURCE_DIR +
                               "/core/reference/pillow_reference.py";

// Uniform bytes from raw mt19937_64 draws (8 bytes per draw), so the data is the same everywhere.
cv::Mat noise(cv::Size size, int channels, uint64_t seed) {
  cv::Mat m(size, CV_8UC(channels));
  std::mt19937_64 rng(seed);
  const size_t n = m.total() * m.elemSize();
  for (size_t i = 0; i < n; i += 8) {
    const uint64_t draw = rng();
    for (size_t b = 0; b < 8 && i + b < n; ++b)
      m.data[i + b] = static_cast<uint8_t>(draw >> (8 * b));
  }
  return m;
}

// Each channel ramps in a different direction, so every pass sees non-constant data.
cv::Mat gradient(cv::Size size, int channels) {
  cv::Mat m(size, CV_8UC(channels));
  for (int y = 0; y < size.height; ++y) {
    for (int x = 0; x < size.width; ++x) {
      for (int c = 0; c < channels; ++c) {
        const int v = c == 0   ? 255 * x / std::max(1, size.width - 1)
                      : c == 1 ? 255 * y / std::max(1, size.height - 1)
                               : 255 * (x + y) / std::max(1, size.width + size.height - 2);
        m.ptr<uint8_t>(y)[x * channels + c] = static_cast<uint8_t>(v);
      }
    }
  }
  return m;
}

// Photo-like: a smooth background with hard-edged shapes, thin lines and text (where a resampler
// overshoots and clamps).
cv::Mat drawing(cv::Size size, int channels) {
  cv::Mat bgr = gradient(size, 3);
  const int w = size.width;
  const int h = size.height;
  cv::rectangle(bgr, cv::Rect(w / 8, h / 6, w / 3, h / 3), cv::Scalar(255, 255, 255), cv::FILLED);
  cv::circle(bgr, cv::Point(2 * w / 3, h / 2), std::max(1, std::min(w, h) / 4), cv::Scalar(0, 0, 0),
             cv::FILLED);
  cv::circle(bgr, cv::Point(2 * w / 3, h / 2), std::max(1, std::min(w, h) / 8),
             cv::Scalar(20, 40, 250), cv::FILLED);
  for (int i = 0; i < 6; ++i) {
    cv::line(bgr, cv::Point(i * w / 6, 0), cv::Point(w - 1 - i * w / 7, h - 1),
             cv::Scalar(0, 255, 0), 1);
  }
  cv::putText(bgr, "HN-CLIP", cv::Point(w / 10, h - h / 8), cv::FONT_HERSHEY_SIMPLEX,
              std::max(0.3, w / 300.0), cv::Scalar(250, 10, 120), std::max(1, w / 200));
  if (channels == 3) return bgr;
  cv::Mat grey;
  cv::cvtColor(bgr, grey, cv::COLOR_BGR2GRAY);
  return grey;
}

struct ResizeCase {
  cv::Size from;
  cv::Size to;
  const char* what;
};

// Pixels where `a` and `b` differ (both the same type and size).
int64_t differing_pixels(const cv::Mat& a, const cv::Mat& b) {
  cv::Mat diff;
  cv::absdiff(a, b, diff);
  return cv::countNonZero(diff.reshape(1));
}

TEST(PillowResize, IdenticalToPillowBicubic) {
  const std::vector<ResizeCase> cases = {
      {{640, 480}, {298, 224}, "CLIP shrink of a 4:3 photo"},
      {{481, 333}, {323, 224}, "odd sizes, fractional scale"},
      {{50, 50}, {224, 224}, "enlarge square"},
      {{224, 300}, {167, 224}, "shrink tall"},
      {{30, 20}, {336, 224}, "enlarge ~11x"},
      {{481, 333}, {300, 333}, "horizontal pass only"},
      {{481, 333}, {481, 200}, "vertical pass only"},
      {{50, 50}, {37, 61}, "shrink one side, enlarge the other"},
      {{97, 13}, {5, 3}, "very strong shrink"},
      {{13, 1}, {4, 3}, "single row"},
      {{1, 1}, {3, 2}, "single pixel"},
      {{333, 481}, {224, 323}, "odd sizes, tall"},
  };
  ScratchDir dir;
  json spec{{"cases", json::array()}};
  struct Expect {
    cv::Mat src;
    cv::Size to;
    std::string dst;
    std::string label;
  };
  std::vector<Expect> expects;
  int index = 0;
  for (const auto& c : cases) {
    for (int channels : {3, 1}) {
      const std::vector<std::pair<std::string, cv::Mat>> images = {
          {"noise", noise(c.from, channels, 100 + index)},
          {"gradient", gradient(c.from, channels)},
          {"drawing", drawing(c.from, channels)}};
      for (const auto& [kind, image] : images) {
        const std::string stem = dir.path().string() + "/" + std::to_string(index++);
        ASSERT_TRUE(cv::imwrite(stem + "_src.png", image));
        spec["cases"].push_back({{"src", stem + "_src.png"},
                                 {"dst", stem + "_pil.png"},
                                 {"width", c.to.width},
                                 {"height", c.to.height}});
        expects.push_back({image, c.to, stem + "_pil.png",
                           std::string(c.what) + " " + kind + (channels == 3 ? " RGB" : " L")});
      }
    }
  }
  test::write_text_file(dir / "resize.json", spec.dump());
  std::string out, err;
  ASSERT_EQ(test::run_command(kReference + " resize " + (dir / "resize.json").string(), &out, &err),
            0)
      << "reference script failed: " << err;

  for (const auto& e : expects) {
    SCOPED_TRACE(e.label);
    const cv::Mat pil = cv::imread(e.dst, cv::IMREAD_UNCHANGED);
    ASSERT_EQ(pil.type(), e.src.type());
    ASSERT_EQ(pil.size(), e.to);
    const cv::Mat ours = pillow_resize(e.src, e.to);
    ASSERT_EQ(ours.type(), e.src.type());
    ASSERT_EQ(ours.size(), e.to);
    EXPECT_EQ(differing_pixels(ours, pil), 0)
        << "max difference " << cv::norm(ours, pil, cv::NORM_INF);
  }
}

TEST(PillowResize, WindowIsTheSamePixelsAsTheCrop) {
  const cv::Mat image = drawing({481, 333}, 3);
  for (const cv::Size size : {cv::Size(323, 224), cv::Size(900, 700), cv::Size(481, 100)}) {
    const cv::Mat full = pillow_resize(image, size);
    const cv::Rect crop(50, 0, std::min(224, size.width - 50), std::min(224, size.height));
    for (const cv::Rect window :
         {cv::Rect(0, 0, size.width, size.height), crop,
          cv::Rect(size.width - 7, size.height - 5, 7, 5), cv::Rect(3, 9, 1, 1)}) {
      SCOPED_TRACE(std::to_string(size.width) + "x" + std::to_string(size.height));
      const cv::Mat part = pillow_resize(image, size, window);
      ASSERT_EQ(part.size(), window.size());
      EXPECT_EQ(differing_pixels(part, full(window)), 0) << window;
    }
  }
  // Same size: an unchanged copy (Pillow copies too), not a view of the input.
  cv::Mat same = pillow_resize(image, image.size());
  EXPECT_EQ(differing_pixels(same, image), 0);
  EXPECT_NE(same.data, image.data);
}

TEST(PillowResize, RejectsBadInputs) {
  const cv::Mat image(10, 10, CV_8UC3, cv::Scalar(1, 2, 3));
  EXPECT_THROW(pillow_resize(cv::Mat(), {5, 5}), std::invalid_argument);
  EXPECT_THROW(pillow_resize(cv::Mat(10, 10, CV_32FC3), {5, 5}), std::invalid_argument);
  EXPECT_THROW(pillow_resize(image, {0, 5}), std::invalid_argument);
  EXPECT_THROW(pillow_resize(image, {5, 5}, cv::Rect(1, 1, 5, 5)), std::invalid_argument);
  EXPECT_THROW(pillow_resize(image, {5, 5}, cv::Rect(0, 0, 0, 5)), std::invalid_argument);
}

std::vector<float> read_floats(const std::string& path, size_t n) {
  std::vector<float> v(n);
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(n * sizeof(float)));
  if (!in || in.peek() != std::char_traits<char>::eof()) {
    throw std::runtime_error(path + ": expected exactly " + std::to_string(n) + " floats");
  }
  return v;
}

// `jpeg` with an EXIF segment saying "rotate 90 degrees clockwise to display" (orientation 6):
// APP1 "Exif", a big-endian TIFF header and one IFD entry, inserted right after SOI.
std::vector<uint8_t> with_exif_orientation_6(const std::vector<uint8_t>& jpeg) {
  const std::vector<uint8_t> app1 = {
      0xFF, 0xE1, 0x00, 0x22,                                // APP1, length 34 (itself included)
      'E',  'x',  'i',  'f',  0x00, 0x00,                    // EXIF identifier
      'M',  'M',  0x00, 0x2A, 0x00, 0x00, 0x00, 0x08,        // TIFF header, IFD0 at offset 8
      0x00, 0x01,                                            // one entry
      0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01,        // Orientation, SHORT, count 1
      0x00, 0x06, 0x00, 0x00,                                // value 6
      0x00, 0x00, 0x00, 0x00};                               // no next IFD
  std::vector<uint8_t> out(jpeg.begin(), jpeg.begin() + 2);  // SOI
  out.insert(out.end(), app1.begin(), app1.end());
  out.insert(out.end(), jpeg.begin() + 2, jpeg.end());
  return out;
}

TEST(PillowResize, ClipPreprocessingMatchesPilAndTorchReference) {
  ScratchDir dir;
  struct Source {
    std::string name;
    cv::Mat image;
  };
  const std::vector<Source> sources = {
      {"photo_640x480.png", drawing({640, 480}, 3)},
      {"noise_481x333.png", noise({481, 333}, 3, 7)},
      {"grey_333x481.png", drawing({333, 481}, 1)},
      {"tall_224x300.png", drawing({224, 300}, 3)},  // no resize at 224: crop only
      {"tiny_30x20.png", drawing({30, 20}, 3)},      // enlarged
      {"square_50x50.png", noise({50, 50}, 3, 8)},
      {"photo_640x480.jpg", drawing({640, 480}, 3)},  // decoded by OpenCV here, Pillow there
  };
  for (const auto& s : sources) ASSERT_TRUE(cv::imwrite((dir / s.name).string(), s.image));
  // A camera-style JPEG that asks to be rotated: PIL's Image.open (hence CLIP) does not rotate.
  std::vector<uint8_t> jpeg;
  ASSERT_TRUE(cv::imencode(".jpg", drawing({160, 90}, 3), jpeg));
  const std::string rotated_name = "exif_orientation_6.jpg";
  const auto tagged = with_exif_orientation_6(jpeg);
  test::write_text_file(dir / rotated_name, std::string(tagged.begin(), tagged.end()));
  ASSERT_EQ(cv::imread((dir / rotated_name).string()).size(), cv::Size(90, 160))
      << "OpenCV should see the EXIF orientation (else this case tests nothing)";
  const std::vector<std::string> names = [&] {
    std::vector<std::string> n;
    for (const auto& s : sources) n.push_back(s.name);
    n.push_back(rotated_name);
    return n;
  }();

  for (int n_px : {224, 48}) {
    SCOPED_TRACE("n_px " + std::to_string(n_px));
    json spec{{"n_px", n_px}, {"cases", json::array()}};
    for (const auto& name : names) {
      spec["cases"].push_back(
          {{"src", (dir / name).string()}, {"dst", (dir / (name + ".f32")).string()}});
    }
    test::write_text_file(dir / "clip.json", spec.dump());
    std::string out, err;
    ASSERT_EQ(test::run_command(kReference + " clip " + (dir / "clip.json").string(), &out, &err),
              0)
        << "reference script failed: " << err;

    ImagePipelineConfig cfg;
    cfg.image_size = n_px;
    const ImagePipeline pipeline(cfg);
    const auto n = static_cast<size_t>(pipeline.floats_per_image());
    for (const auto& name : names) {
      SCOPED_TRACE(name);
      std::vector<float> ours(n);
      pipeline.load((dir / name).string(), ours.data());
      const auto ref = read_floats((dir / (name + ".f32")).string(), n);
      double max_diff = 0.0;
      for (size_t i = 0; i < n; ++i)
        max_diff = std::max(max_diff, std::abs(double(ours[i]) - ref[i]));
      EXPECT_LT(max_diff, 1e-5);
    }
  }
}

// Why pillow_resize exists: OpenCV's INTER_CUBIC keeps a 4-tap kernel when shrinking, so on a
// 640x480 -> 298x224 shrink it aliases where Pillow averages; in CLIP's normalised units the two
// differ by more than 1.0 (an 8-bit difference of about 70).
TEST(PillowResize, OpenCvInterCubicIsFarFromPillow) {
  const ImagePipelineConfig cfg;
  for (const auto& image : {noise({640, 480}, 3, 11), drawing({640, 480}, 3)}) {
    const cv::Size size = ImagePipeline::resized_size(image.size(), 224);
    ASSERT_EQ(size, cv::Size(298, 224));
    cv::Mat cubic;
    cv::resize(image, cubic, size, 0, 0, cv::INTER_CUBIC);
    const cv::Mat pil = pillow_resize(image, size);
    double worst = 0.0;
    for (int y = 0; y < size.height; ++y) {
      for (int x = 0; x < size.width; ++x) {
        for (int c = 0; c < 3; ++c) {  // OpenCV order B, G, R -> CLIP channel 2 - c
          const int d = std::abs(cubic.ptr<uint8_t>(y)[3 * x + c] - pil.ptr<uint8_t>(y)[3 * x + c]);
          worst = std::max(worst, d / 255.0 / cfg.std[2 - c]);
        }
      }
    }
    std::cout << "INTER_CUBIC vs Pillow bicubic, worst normalised difference: " << worst << "\n";
    EXPECT_GT(worst, 1.0);
  }
}

}  // namespace
}  // namespace hnclip

// Tests core/data/structure_map: a flat image has no edges; on the built-in benchmark's scenes
// every edge lies on an object's outline and every object has some; a hollow object shows its
// inner outline as well as its outer one; edges between colours of equal brightness are found;
// the default thresholds mean the contrast the header says, in every direction; the output is a
// deterministic white-on-black BGR image of the input's size that the image pipeline takes; grey
// input gives the map of its BGR conversion, BGRA input that of its BGR part; bad inputs and
// options throw, naming what is wrong.

#include "data/structure_map.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "data/image_pipeline.h"
#include "data/synthetic_renderer.h"
#include "data/synthetic_scene.h"

namespace hnclip {
namespace {

constexpr double kMaxEdgeDistance = 2.0;  // px from an object's pixels an edge may lie
constexpr int kScenes = 200;              // rendered scenes checked for outlines

// Edge pixels of a map (any channel non-zero), as a 0/255 mask.
cv::Mat edge_mask(const cv::Mat& map) {
  cv::Mat grey;
  cv::cvtColor(map, grey, cv::COLOR_BGR2GRAY);
  return grey > 0;
}

int edge_count(const cv::Mat& map) { return cv::countNonZero(edge_mask(map)); }

// Pixels where two renders differ at all, in any channel.
cv::Mat changed_pixels(const cv::Mat& a, const cv::Mat& b) {
  cv::Mat diff, channels[3];
  cv::absdiff(a, b, diff);
  cv::split(diff, channels);
  return cv::max(cv::max(channels[0], channels[1]), channels[2]) > 0;
}

// `mask` grown by `px` pixels in every direction (a square neighbourhood).
cv::Mat grown(const cv::Mat& mask, int px) {
  cv::Mat out;
  cv::dilate(mask, out, cv::getStructuringElement(cv::MORPH_RECT, {2 * px + 1, 2 * px + 1}));
  return out;
}

// The message of the std::invalid_argument that `f` throws ("" if it throws none).
std::string invalid_argument_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

bool same_bytes(const cv::Mat& a, const cv::Mat& b) {
  return a.size() == b.size() && a.type() == b.type() && cv::norm(a, b, cv::NORM_INF) == 0;
}

Scene one_object_scene(SceneObject o, SceneBackground background) {
  Scene s;
  s.background = background;
  s.objects = {o};
  return s;
}

TEST(StructureMap, FlatImageGivesAnAllBlackMap) {
  for (const cv::Scalar& colour : {cv::Scalar(0, 0, 0), cv::Scalar(110, 110, 110),
                                   cv::Scalar(255, 255, 255), cv::Scalar(20, 60, 140)}) {
    SCOPED_TRACE(cv::format("colour %g %g %g", colour[0], colour[1], colour[2]));
    const cv::Mat map = structure_map(cv::Mat(48, 48, CV_8UC3, colour));
    ASSERT_EQ(map.type(), CV_8UC3);
    EXPECT_EQ(cv::countNonZero(map.reshape(1)), 0);
  }
}

TEST(StructureMap, EdgesAreTheOutlinesOfEveryObject) {
  const SyntheticRenderer renderer;
  const int cell = renderer.image_size() / kSceneGridSide;
  SceneGenerator gen(29);
  int objects = 0;
  for (int trial = 0; trial < kScenes; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const Scene scene = gen.random_scene(1, kSceneMaxObjects);
    Scene empty = scene;
    empty.objects.clear();
    const cv::Mat image = renderer.render(scene);
    const cv::Mat edges = edge_mask(structure_map(image));
    // Distance of every pixel to the nearest one the objects change: edges lie on outlines,
    // never out on the flat background.
    cv::Mat unchanged = ~changed_pixels(image, renderer.render(empty)), distance;
    cv::distanceTransform(unchanged, distance, cv::DIST_L2, cv::DIST_MASK_PRECISE);
    const cv::Mat stray = (distance > kMaxEdgeDistance) & edges;
    EXPECT_EQ(cv::countNonZero(stray), 0);
    // Every object, whatever its colour against whatever background, has edges in its cell.
    for (const auto& o : scene.objects) {
      const cv::Rect r((o.cell % kSceneGridSide) * cell, (o.cell / kSceneGridSide) * cell, cell,
                       cell);
      EXPECT_GT(cv::countNonZero(edges(r)), 0) << scene_name(o.colour) << " " << scene_name(o.shape)
                                               << " on " << scene_name(scene.background);
      ++objects;
    }
  }
  EXPECT_GT(objects, kScenes);  // 1-4 objects per scene
}

TEST(StructureMap, HollowObjectHasInnerAndOuterOutline) {
  const SyntheticRenderer renderer;
  // Every shape, colour, size and background, one at a time in the centre cell.
  constexpr int kLooks = kSceneShapeCount * kSceneColourCount * kSceneSizeCount;
  for (int k = 0; k < kLooks * kSceneBackgroundCount; ++k) {
    SceneObject o;
    o.shape = static_cast<SceneShape>(k % kSceneShapeCount);
    o.colour = static_cast<SceneColour>(k / kSceneShapeCount % kSceneColourCount);
    o.size = static_cast<SceneSize>(k / (kSceneShapeCount * kSceneColourCount) % kSceneSizeCount);
    o.cell = kSceneCellCount / 2;
    const auto bg = static_cast<SceneBackground>(k / kLooks);
    SCOPED_TRACE(std::string(scene_name(o.size)) + " " + scene_name(o.colour) + " " +
                 scene_name(o.shape) + " on " + scene_name(bg));
    const cv::Mat empty = renderer.render(Scene{bg, {}});
    const cv::Mat solid_image = renderer.render(one_object_scene(o, bg));
    o.texture = SceneTexture::Hollow;
    const cv::Mat hollow_image = renderer.render(one_object_scene(o, bg));
    const cv::Mat solid = edge_mask(structure_map(solid_image));
    const cv::Mat hollow = edge_mask(structure_map(hollow_image));
    // The hole: what the solid object covers and the hollow one leaves as background.
    const cv::Mat hole = changed_pixels(solid_image, empty) & ~changed_pixels(hollow_image, empty);
    ASSERT_GT(cv::countNonZero(hole), 0);
    // Outer outline: beside every edge pixel of the solid object lies one of the hollow's ...
    EXPECT_EQ(cv::countNonZero(solid & ~grown(hollow, 1)), 0);
    // ... and an inner one: edges at the hole, away from the outer outline ...
    EXPECT_GT(cv::countNonZero(hollow & grown(hole, 1) & ~grown(solid, 1)), 0);
    // ... so more edge pixels than the solid object has.
    EXPECT_GT(cv::countNonZero(hollow), cv::countNonZero(solid));
  }
}

// Structure is what separates regions whatever their colours: a green object on the grey
// background is 6 grey levels brighter, yet its outline must be found.
TEST(StructureMap, FindsEdgesBetweenColoursOfEqualBrightness) {
  const cv::Scalar grey = scene_bgr(SceneBackground::Grey);
  const cv::Scalar green = scene_bgr(SceneColour::Green);
  cv::Mat image(48, 48, CV_8UC3, grey);
  cv::rectangle(image, cv::Rect(16, 16, 16, 16), green, cv::FILLED);
  cv::Mat luma;
  cv::cvtColor(image, luma, cv::COLOR_BGR2GRAY);
  double lo = 0, hi = 0;
  cv::minMaxLoc(luma, &lo, &hi);
  ASSERT_LE(hi - lo, 10);  // the premise: nearly the same brightness
  const cv::Mat edges = edge_mask(structure_map(image));
  // The rectangle's four sides, each a line on one side of the colour step ...
  EXPECT_GE(cv::countNonZero(edges), 4 * 14);
  // ... and nothing else: no edge more than a pixel outside it or inside its interior.
  const cv::Mat object = changed_pixels(image, cv::Mat(image.size(), CV_8UC3, grey));
  cv::Mat interior;
  cv::erode(object, interior, cv::getStructuringElement(cv::MORPH_RECT, {3, 3}));
  EXPECT_EQ(cv::countNonZero(edges & ~grown(object, 1)), 0);
  EXPECT_EQ(cv::countNonZero(edges & interior), 0);
}

// The header's reading of the defaults: an edge starts at a step of more than 50 levels, upright
// or diagonal alike (|dx| + |dy| would find a diagonal step of 40).
TEST(StructureMap, DefaultThresholdsAreAContrastStepInEveryDirection) {
  constexpr int kSide = 32;
  for (const int step : {20, 40, 60, 120}) {
    for (const int base : {0, 100, 255 - step}) {
      SCOPED_TRACE("step " + std::to_string(step) + " from " + std::to_string(base));
      cv::Mat upright(kSide, kSide, CV_8UC3, cv::Scalar::all(base));
      upright(cv::Rect(kSide / 2, 0, kSide / 2, kSide)).setTo(cv::Scalar::all(base + step));
      cv::Mat diagonal(kSide, kSide, CV_8UC3, cv::Scalar::all(base));
      for (int y = 0; y < kSide; ++y) {
        diagonal(cv::Rect(y + 1, y, kSide - y - 1, 1)).setTo(cv::Scalar::all(base + step));
      }
      if (step > 50) {
        EXPECT_EQ(edge_count(structure_map(upright)), kSide);  // one full column
        EXPECT_GE(edge_count(structure_map(diagonal)), kSide);
      } else {
        EXPECT_EQ(edge_count(structure_map(upright)), 0);
        EXPECT_EQ(edge_count(structure_map(diagonal)), 0);
      }
    }
  }
}

TEST(StructureMap, IsDeterministicAndLeavesItsInputAlone) {
  const SyntheticRenderer renderer;
  SceneGenerator gen(5);
  for (const double sigma : {0.0, 1.0}) {
    SCOPED_TRACE("blur_sigma " + std::to_string(sigma));
    StructureMapOptions options;
    options.blur_sigma = sigma;
    const cv::Mat image = renderer.render(gen.random_scene(1, kSceneMaxObjects));
    const cv::Mat before = image.clone();
    const cv::Mat first = structure_map(image, options);
    EXPECT_TRUE(same_bytes(image, before));
    EXPECT_TRUE(same_bytes(first, structure_map(image.clone(), options)));
    EXPECT_GT(edge_count(first), 0);
  }
}

TEST(StructureMap, IsAWhiteOnBlackBgrImageOfTheInputsSize) {
  // Not square, and a view into a larger image (rows not contiguous).
  cv::Mat canvas(80, 90, CV_8UC3, cv::Scalar(240, 240, 240));
  cv::circle(canvas, {40, 35}, 12, cv::Scalar(220, 60, 30), cv::FILLED, cv::LINE_AA);
  const cv::Mat image = canvas(cv::Rect(5, 7, 71, 53));
  const cv::Mat map = structure_map(image);
  ASSERT_EQ(map.size(), image.size());
  ASSERT_EQ(map.type(), CV_8UC3);
  int edges = 0;
  for (int y = 0; y < map.rows; ++y) {
    for (int x = 0; x < map.cols; ++x) {
      const cv::Vec3b px = map.at<cv::Vec3b>(y, x);
      ASSERT_TRUE(px == cv::Vec3b(0, 0, 0) || px == cv::Vec3b(255, 255, 255)) << x << "," << y;
      edges += px[0] == 255;
    }
  }
  EXPECT_GT(edges, 40);  // the circle's outline, about 2 pi 12 pixels
  // It goes through the image tower's preprocessing like any image.
  const ImagePipeline pipeline;
  std::vector<float> chw(static_cast<size_t>(pipeline.floats_per_image()));
  EXPECT_NO_THROW(pipeline.process(map, chw.data()));
}

TEST(StructureMap, GreyInputGivesTheMapOfItsBgrConversion) {
  const SyntheticRenderer renderer;
  SceneGenerator gen(17);
  for (int trial = 0; trial < 20; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    cv::Mat grey, bgr;
    cv::cvtColor(renderer.render(gen.random_scene(1, kSceneMaxObjects)), grey, cv::COLOR_BGR2GRAY);
    cv::cvtColor(grey, bgr, cv::COLOR_GRAY2BGR);
    for (const double sigma : {0.0, 1.0}) {
      StructureMapOptions options;
      options.blur_sigma = sigma;
      const cv::Mat from_grey = structure_map(grey, options);
      EXPECT_EQ(from_grey.type(), CV_8UC3);
      EXPECT_TRUE(same_bytes(from_grey, structure_map(bgr, options))) << "blur_sigma " << sigma;
    }
  }
}

TEST(StructureMap, BgraInputIgnoresAlpha) {
  const SyntheticRenderer renderer;
  const cv::Mat bgr = renderer.render(SceneGenerator(3).random_scene(2, kSceneMaxObjects));
  cv::Mat bgra;
  cv::cvtColor(bgr, bgra, cv::COLOR_BGR2BGRA);
  // An alpha channel with edges of its own, which must not show.
  cv::rectangle(bgra, cv::Rect(0, 0, 24, 24), cv::Scalar(0, 0, 0, 0), cv::FILLED);
  cv::Mat planes[4];
  cv::split(bgra, planes);
  cv::Mat restored;
  cv::merge(std::vector<cv::Mat>{planes[0], planes[1], planes[2]}, restored);
  EXPECT_TRUE(same_bytes(structure_map(bgra), structure_map(restored)));
}

TEST(StructureMap, BadInputsThrowNamingWhatIsWrong) {
  const auto message = [](const cv::Mat& image, const StructureMapOptions& options = {}) {
    return invalid_argument_message([&] { structure_map(image, options); });
  };
  const cv::Mat good(8, 8, CV_8UC3, cv::Scalar::all(0));
  EXPECT_NE(message(cv::Mat()).find("empty"), std::string::npos);
  EXPECT_NE(message(cv::Mat(8, 8, CV_16UC3, cv::Scalar::all(0))).find("8-bit"), std::string::npos);
  EXPECT_NE(message(cv::Mat(8, 8, CV_32FC1, cv::Scalar::all(0))).find("CV_32F"), std::string::npos);
  EXPECT_NE(message(cv::Mat(8, 8, CV_8UC2, cv::Scalar::all(0))).find("got 2"), std::string::npos);
  const std::vector<std::pair<std::function<void(StructureMapOptions&)>, std::string>> bad = {
      {[](StructureMapOptions& o) { o.low_threshold = -1; }, "low_threshold"},
      {[](StructureMapOptions& o) { o.high_threshold = std::nan(""); }, "high_threshold"},
      {[](StructureMapOptions& o) { o.low_threshold = 300; }, "above high_threshold"},
      {[](StructureMapOptions& o) { o.blur_sigma = -0.5; }, "blur_sigma"},
      {[](StructureMapOptions& o) { o.aperture = 4; }, "aperture"},
  };
  for (const auto& [spoil, name] : bad) {
    StructureMapOptions options;
    spoil(options);
    EXPECT_NE(message(good, options).find(name), std::string::npos) << name;
  }
  EXPECT_EQ(message(good), "");  // the same image with valid options is fine
}

}  // namespace
}  // namespace hnclip

// Tests core/data/image_file_check: the size every supported format's header declares (files
// written by OpenCV), forged headers claiming 60000 x 60000 pixels refused before any decoding,
// truncated and mislabelled files named, and the data-root rule for paths.

#include "data/image_file_check.h"

#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <fstream>
#include <string>

#include "support/test_dirs.h"

namespace hnclip {
namespace {

namespace fs = std::filesystem;
using test::ScratchDir;

std::string bytes_of(const fs::path& p) { return test::read_text_file(p); }

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

TEST(ImageFileCheck, EveryFormatsHeaderGivesItsSize) {
  ScratchDir dir;
  const cv::Mat image(37, 53, CV_8UC3, cv::Scalar(10, 20, 30));
  for (const std::string ext : {".png", ".jpg", ".bmp", ".webp", ".tiff"}) {
    const fs::path p = dir / ("i" + ext);
    ASSERT_TRUE(cv::imwrite(p.string(), image)) << ext;
    std::string problem = "unset";
    const ImageHeader h = read_image_header(p, &problem);
    EXPECT_EQ(problem, "") << ext;
    EXPECT_EQ(h.width, 53) << ext;
    EXPECT_EQ(h.height, 37) << ext;
    EXPECT_EQ(image_file_problem(p), "") << ext;
  }
  // A lossless WebP has another header layout than a lossy one.
  const fs::path lossless = dir / "l.webp";
  ASSERT_TRUE(cv::imwrite(lossless.string(), image, {cv::IMWRITE_WEBP_QUALITY, 101}));
  std::string problem;
  const ImageHeader h = read_image_header(lossless, &problem);
  EXPECT_EQ(problem, "");
  EXPECT_EQ(h.width, 53);
  EXPECT_EQ(h.height, 37);
}

TEST(ImageFileCheck, ForgedGiantSizesAreRefusedFromTheHeaderAlone) {
  ScratchDir dir;
  const cv::Mat image(8, 8, CV_8UC3, cv::Scalar(1, 2, 3));
  // PNG: IHDR's width and height (big-endian, bytes 16..23) set to 60000; the rest untouched.
  ASSERT_TRUE(cv::imwrite((dir / "p.png").string(), image));
  std::string png = bytes_of(dir / "p.png");
  const std::string big_be("\x00\x00\xEA\x60", 4);  // 60000
  png.replace(16, 4, big_be);
  png.replace(20, 4, big_be);
  write_bytes(dir / "bomb.png", png);
  const std::string msg = image_file_problem(dir / "bomb.png");
  EXPECT_NE(msg.find((dir / "bomb.png").string()), std::string::npos) << msg;
  EXPECT_NE(msg.find("60000 x 60000 = 3600000000 pixels is over the limit of 178956970"),
            std::string::npos)
      << msg;
  // JPEG: the frame header's height and width (after its marker, length and precision).
  ASSERT_TRUE(cv::imwrite((dir / "p.jpg").string(), image));
  std::string jpg = bytes_of(dir / "p.jpg");
  const auto sof = jpg.find("\xFF\xC0");
  ASSERT_NE(sof, std::string::npos);
  jpg.replace(sof + 5, 2, "\xEA\x60");
  jpg.replace(sof + 7, 2, "\xEA\x60");
  write_bytes(dir / "bomb.jpg", jpg);
  EXPECT_NE(image_file_problem(dir / "bomb.jpg").find("3600000000 pixels is over the limit"),
            std::string::npos);
  // The limit is the caller's.
  EXPECT_EQ(image_file_problem(dir / "bomb.jpg", int64_t{60000} * 60000), "");
  EXPECT_NE(image_file_problem(dir / "p.png", 63).find("8 x 8 = 64 pixels"), std::string::npos);
}

TEST(ImageFileCheck, TruncatedEmptyAndMislabelledFilesAreNamed) {
  ScratchDir dir;
  const cv::Mat image(16, 16, CV_8UC3, cv::Scalar(5, 6, 7));
  ASSERT_TRUE(cv::imwrite((dir / "p.png").string(), image));
  const std::string png = bytes_of(dir / "p.png");
  write_bytes(dir / "cut.png", png.substr(0, png.size() - 20));
  EXPECT_NE(image_file_problem(dir / "cut.png").find("PNG without its IEND chunk"), std::string::npos);
  write_bytes(dir / "header-only.png", png.substr(0, 20));
  EXPECT_NE(image_file_problem(dir / "header-only.png").find("truncated PNG header"), std::string::npos);
  write_bytes(dir / "empty.jpg", "");
  EXPECT_NE(image_file_problem(dir / "empty.jpg").find("empty file"), std::string::npos);
  write_bytes(dir / "notes.png", "a text file\n");
  EXPECT_NE(image_file_problem(dir / "notes.png").find("not a JPEG/PNG/BMP/WebP/TIFF image"),
            std::string::npos);
  write_bytes(dir / "sig-only.jpg", "\xFF\xD8\xFF\xE0");
  EXPECT_NE(image_file_problem(dir / "sig-only.jpg").find("JPEG without a frame header"),
            std::string::npos);
  EXPECT_NE(image_file_problem(dir / "missing.png").find("no image file at"), std::string::npos);
  // Formats OpenCV decodes: truncation is seen in the header (OpenCV would print on stderr).
  cv::Mat noisy(40, 40, CV_8UC3);
  cv::randu(noisy, 0, 256);
  for (const std::string ext : {".bmp", ".webp", ".tiff"}) {
    const fs::path whole = dir / ("whole" + ext);
    ASSERT_TRUE(cv::imwrite(whole.string(), noisy)) << ext;
    EXPECT_EQ(image_file_problem(whole), "") << ext;
    const std::string bytes = bytes_of(whole);
    write_bytes(dir / ("cut" + ext), bytes.substr(0, bytes.size() * 3 / 4));
    EXPECT_NE(image_file_problem(dir / ("cut" + ext)).find("truncated"), std::string::npos)
        << ext << ": " << image_file_problem(dir / ("cut" + ext));
  }
  fs::create_directories(dir / "folder.png");
  EXPECT_NE(image_file_problem(dir / "folder.png").find("no image file at"), std::string::npos);
}

TEST(ImageFileCheck, PathsMustStayInsideTheDataRoot) {
  const fs::path root = "/data/set";
  EXPECT_EQ(image_path_problem(root, "/data/set/img/a.png", false), "");
  EXPECT_EQ(image_path_problem("/data/set/", "/data/set/a.png", false), "");
  EXPECT_EQ(image_path_problem(root, "/data/set/x/../a.png", false), "");
  const std::string up = image_path_problem(root, "/data/set/../other/a.png", false);
  EXPECT_NE(up.find("/data/other/a.png is outside the data root /data/set"), std::string::npos) << up;
  EXPECT_NE(up.find("--allow-outside-root"), std::string::npos) << up;
  // A sibling whose name starts like the root is outside too (component-wise, not by prefix).
  EXPECT_NE(image_path_problem(root, "/data/settings/a.png", false), "");
  EXPECT_NE(image_path_problem(root, "/etc/passwd", false), "");
  EXPECT_EQ(image_path_problem(root, "/etc/passwd", true), "");
}

}  // namespace
}  // namespace hnclip

// Tests core/data/png_decoder: the same pixels as cv::imread(IMREAD_COLOR) for colour, alpha,
// grey, 16-bit and 1-bit files, and a truncated or damaged file refused naming it — with nothing
// printed on stderr (OpenCV's reader let libpng print "libpng error: ..." naming no file).

#include "data/png_decoder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <cstdio>
#include <fstream>
#include <functional>

#include "data/benchmark.h"
#include "support/captured_stderr.h"
#include "support/test_dirs.h"

namespace hnclip {
namespace {

using test::ScratchDir;
using test::stderr_of;

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

TEST(PngDecoder, PixelsEqualOpenCvsForEveryKindOpenCvWrites) {
  ScratchDir dir;
  cv::setRNGSeed(5);
  auto noise = [](int type) {
    cv::Mat m(23, 41, type);
    cv::randu(m, 0, type == CV_16UC3 ? 65536 : 256);
    return m;
  };
  const struct {
    const char* name;
    cv::Mat image;
    std::vector<int> params;
  } cases[] = {{"rgb.png", noise(CV_8UC3), {}},
               {"rgba.png", noise(CV_8UC4), {}},
               {"grey.png", noise(CV_8UC1), {}},
               {"deep.png", noise(CV_16UC3), {}},
               {"bilevel.png", noise(CV_8UC1) > 128, {cv::IMWRITE_PNG_BILEVEL, 1}}};
  for (const auto& c : cases) {
    const std::string path = (dir / c.name).string();
    ASSERT_TRUE(cv::imwrite(path, c.image, c.params)) << c.name;
    const cv::Mat ours = decode_png_file(path);
    const cv::Mat theirs = cv::imread(path, cv::IMREAD_COLOR | cv::IMREAD_IGNORE_ORIENTATION);
    ASSERT_EQ(ours.type(), CV_8UC3) << c.name;
    ASSERT_EQ(ours.size(), theirs.size()) << c.name;
    EXPECT_EQ(cv::norm(ours, theirs, cv::NORM_INF), 0.0) << c.name;
  }
}

TEST(PngDecoder, TruncatedAndDamagedFilesAreRefusedNamingThemAndPrintNothing) {
  ScratchDir dir;
  cv::setRNGSeed(6);
  cv::Mat image(64, 64, CV_8UC3);
  cv::randu(image, 0, 256);
  const std::string whole = (dir / "whole.png").string();
  ASSERT_TRUE(cv::imwrite(whole, image));
  const std::string bytes = test::read_text_file(whole);

  const std::string cut = (dir / "half.png").string();
  write_bytes(cut, bytes.substr(0, bytes.size() / 2));
  std::string message;
  EXPECT_EQ(stderr_of([&] {
              try {
                decode_png_file(cut);
              } catch (const DataError& e) {
                message = e.what();
              }
            }),
            "");
  EXPECT_NE(message.find(cut + ": corrupt PNG: "), std::string::npos) << message;

  // Bytes flipped inside the image data: its CRC no longer matches.
  std::string damaged = bytes;
  for (size_t i = bytes.size() / 2; i < bytes.size() / 2 + 16; ++i) damaged[i] ^= 0x5A;
  const std::string bad = (dir / "damaged.png").string();
  write_bytes(bad, damaged);
  message.clear();
  EXPECT_EQ(stderr_of([&] {
              try {
                decode_png_file(bad);
              } catch (const DataError& e) {
                message = e.what();
              }
            }),
            "");
  EXPECT_NE(message.find(bad + ": corrupt PNG: "), std::string::npos) << message;
  EXPECT_EQ(decode_png_file(whole).size(), cv::Size(64, 64));
}

}  // namespace
}  // namespace hnclip

// Tests core/data/jpeg_decoder: the same pixels as cv::imread for colour and grey JPEGs, and a
// truncated or corrupt file refused naming the file with libjpeg's own words — nothing printed
// on stderr (OpenCV's reader printed "Premature end of JPEG file" and returned the picture).

#include "data/jpeg_decoder.h"

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

namespace fs = std::filesystem;
using test::ScratchDir;
using test::stderr_of;

cv::Mat noise(int rows, int cols, int type) {
  cv::Mat m(rows, cols, type);
  cv::randu(m, 0, 256);
  return m;
}

TEST(JpegDecoder, PixelsEqualOpenCvsForColourAndGrey) {
  ScratchDir dir;
  cv::setRNGSeed(3);
  const struct {
    const char* name;
    cv::Mat image;
  } cases[] = {{"colour.jpg", noise(37, 53, CV_8UC3)}, {"grey.jpg", noise(20, 31, CV_8UC1)}};
  for (const auto& c : cases) {
    const std::string path = (dir / c.name).string();
    ASSERT_TRUE(cv::imwrite(path, c.image, {cv::IMWRITE_JPEG_QUALITY, 80}));
    const cv::Mat ours = decode_jpeg_file(path);
    const cv::Mat theirs = cv::imread(path, cv::IMREAD_COLOR | cv::IMREAD_IGNORE_ORIENTATION);
    ASSERT_EQ(ours.type(), CV_8UC3) << c.name;
    ASSERT_EQ(ours.size(), theirs.size()) << c.name;
    EXPECT_EQ(cv::norm(ours, theirs, cv::NORM_INF), 0.0) << c.name;
  }
}

TEST(JpegDecoder, TruncatedFileIsRefusedNamingItAndPrintsNothing) {
  ScratchDir dir;
  cv::setRNGSeed(4);
  const std::string whole = (dir / "whole.jpg").string();
  ASSERT_TRUE(cv::imwrite(whole, noise(64, 64, CV_8UC3)));
  const std::string bytes = test::read_text_file(whole);
  const std::string cut = (dir / "half.jpg").string();
  {
    std::ofstream out(cut, std::ios::binary);
    out << bytes.substr(0, bytes.size() / 2);
  }
  std::string message;
  const std::string printed = stderr_of([&] {
    try {
      decode_jpeg_file(cut);
    } catch (const DataError& e) {
      message = e.what();
    }
  });
  EXPECT_EQ(printed, "") << "libjpeg printed a bare warning";
  EXPECT_NE(message.find(cut + ": corrupt JPEG: "), std::string::npos) << message;
  EXPECT_NE(message.find("Premature end of JPEG file"), std::string::npos) << message;

  // Garbage inside the entropy-coded data: also a warning, also refused.
  std::string damaged = bytes;
  for (size_t i = bytes.size() / 2; i < bytes.size() / 2 + 64; ++i) damaged[i] = '\xFF';
  const std::string bad = (dir / "damaged.jpg").string();
  {
    std::ofstream out(bad, std::ios::binary);
    out << damaged;
  }
  EXPECT_EQ(stderr_of([&] { EXPECT_THROW(decode_jpeg_file(bad), DataError); }), "");
  // And the whole file still decodes.
  EXPECT_EQ(decode_jpeg_file(whole).size(), cv::Size(64, 64));
}

TEST(JpegDecoder, NotAJpegIsAnErrorNotACrash) {
  ScratchDir dir;
  test::write_text_file(dir / "x.jpg", "\xFF\xD8\xFF but then nothing a decoder can use");
  EXPECT_THROW(decode_jpeg_file((dir / "x.jpg").string()), DataError);
  EXPECT_THROW(decode_jpeg_file((dir / "missing.jpg").string()), DataError);
}

}  // namespace
}  // namespace hnclip

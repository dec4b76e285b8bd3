// shared_image_files on paths made here: the same file named with "..", "./" or through a
// symbolic link is one file; a file in both lists once is reported once, in the split's order;
// paths that do not exist are compared as written.

#include "data/shared_image_files.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "support/test_dirs.h"

namespace {

namespace fs = std::filesystem;

TEST(SharedImageFiles, TheSameFileNamedAnotherWayIsShared) {
  hnclip::test::ScratchDir dir;
  fs::create_directories(dir / "img");
  for (const char* name : {"a.png", "b.png", "c.png"}) std::ofstream(dir / "img" / name) << name;
  fs::create_symlink(dir / "img" / "c.png", dir / "link.png");
  const auto at = [&](const std::string& p) { return (dir / p).string(); };

  const std::vector<std::string> train{at("img/a.png"), at("img/c.png"), at("img/x.png")};
  const std::vector<std::string> test{at("img/b.png"), at("img/../img/a.png"), at("link.png"),
                                      at("./img/a.png"), at("img/x.png")};
  EXPECT_EQ(hnclip::shared_image_files(test, train),
            (std::vector<std::string>{at("img/../img/a.png"), at("link.png"), at("img/x.png")}));
  EXPECT_TRUE(hnclip::shared_image_files({at("img/b.png")}, train).empty());
  EXPECT_TRUE(hnclip::shared_image_files({}, train).empty());
  EXPECT_TRUE(hnclip::shared_image_files(test, {}).empty());
}

}  // namespace

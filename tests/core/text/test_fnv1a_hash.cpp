// Fnv1aHash (core/text/fnv1a_hash.h): the published FNV-1a 64 test vectors, pieces hashing as
// their concatenation, and the hex form.
#include <gtest/gtest.h>

#include "text/fnv1a_hash.h"

using hnclip::Fnv1aHash;

TEST(Fnv1aHash, PublishedTestVectors) {
  EXPECT_EQ(Fnv1aHash().value(), 0xcbf29ce484222325ull);
  EXPECT_EQ(Fnv1aHash().add("a").value(), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(Fnv1aHash().add("foobar").value(), 0x85944171f73967e8ull);
}

TEST(Fnv1aHash, PiecesHashAsTheirConcatenationAndPrintAsSixteenHexDigits) {
  EXPECT_EQ(Fnv1aHash().add("foo").add("").add("bar").value(), Fnv1aHash().add("foobar").value());
  EXPECT_EQ(Fnv1aHash().add("foobar").hex(), "85944171f73967e8");
  EXPECT_EQ(Fnv1aHash().add("a").hex(), "af63dc4c8601ec8c");
  EXPECT_NE(Fnv1aHash().add("ab").value(), Fnv1aHash().add("ba").value());
}

// nearest_word: a misspelt key is answered with the key it most likely meant, and with nothing
// when no key is near or two are equally near.

#include "text/nearest_word.h"

#include <gtest/gtest.h>

namespace hnclip {
namespace {

const std::vector<std::string> kKeys{"epochs",      "loss_gamma",  "loss_gbar",
                                     "logit_scale", "fixed_scale", "lr",
                                     "seed",        "data_seed",   "batch_size"};

TEST(NearestWord, ASpellingSlipFindsItsKey) {
  EXPECT_EQ(nearest_word("epoch", kKeys), "epochs");
  EXPECT_EQ(nearest_word("ephocs", kKeys), "epochs");  // two neighbours swapped
  EXPECT_EQ(nearest_word("loss_gama", kKeys), "loss_gamma");
  EXPECT_EQ(nearest_word("batchsize", kKeys), "batch_size");
  EXPECT_EQ(nearest_word("Lr", kKeys), "lr");
}

TEST(NearestWord, APartOfOneKeyFindsIt) {
  EXPECT_EQ(nearest_word("gamma", kKeys), "loss_gamma");
  EXPECT_EQ(nearest_word("gbar", kKeys), "loss_gbar");
}

TEST(NearestWord, FarOrAmbiguousWordsFindNothing) {
  EXPECT_EQ(nearest_word("temperature", kKeys), "");
  EXPECT_EQ(nearest_word("x", kKeys), "");
  EXPECT_EQ(nearest_word("scale", kKeys), "");  // logit_scale or fixed_scale: no guess
  EXPECT_EQ(nearest_word("", kKeys), "");
  EXPECT_EQ(nearest_word("epoch", {}), "");
}

}  // namespace
}  // namespace hnclip

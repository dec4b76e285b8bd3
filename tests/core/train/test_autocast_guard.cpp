// Tests core/train/autocast_guard: disabled, the guard is a no-op (bit-identical outputs, autocast
// state untouched); enabled on the CPU, products run in bf16 inside the scope and the previous
// state comes back on exit (also when nested); --precision auto chooses bf16 only on CUDA, bf16
// takes the CPU too; the trainer on the CPU computes exactly what it computed before (fp32) unless
// asked for bf16, and then trains.

#include "train/autocast_guard.h"

#include <cmath>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "model/make_clip_model.h"
#include "support/in_memory_data.h"
#include "support/test_dirs.h"
#include "train/trainer.h"

namespace hnclip {
namespace {

TEST(AutocastGuard, DisabledIsANoOp) {
  auto m = make_clip_model(test::tiny_test_config(), 5);
  torch::manual_seed(1);
  const auto images = torch::randn({2, 3, test::kTinyImage, test::kTinyImage});
  const auto tokens =
      torch::tensor({{18, 3, 9, 19, 0, 0, 0, 0}, {18, 5, 19, 0, 0, 0, 0, 0}}, torch::kLong);
  torch::NoGradGuard no_grad;
  const auto plain_img = m->encode_image(images).pooled;
  const auto plain_txt = m->encode_text(tokens).pooled;
  torch::Tensor img, txt;
  {
    AutocastGuard guard(c10::DeviceType::CPU, /*enabled=*/false);
    EXPECT_FALSE(guard.active());
    EXPECT_FALSE(AutocastGuard::is_enabled(c10::DeviceType::CPU));
    img = m->encode_image(images).pooled;
    txt = m->encode_text(tokens).pooled;
  }
  EXPECT_EQ(img.scalar_type(), torch::kFloat);
  EXPECT_TRUE(torch::equal(img, plain_img));
  EXPECT_TRUE(torch::equal(txt, plain_txt));
  // A disabled guard does not even check the device type.
  EXPECT_NO_THROW(AutocastGuard(c10::DeviceType::Meta, false));
  EXPECT_THROW(AutocastGuard(c10::DeviceType::Meta, true), std::invalid_argument);
}

TEST(AutocastGuard, EnabledOnCpuRunsProductsInBf16AndRestores) {
  const auto a = torch::randn({8, 8}), b = torch::randn({8, 8});
  const auto dtype_before = AutocastGuard::dtype(c10::DeviceType::CPU);
  ASSERT_FALSE(AutocastGuard::is_enabled(c10::DeviceType::CPU));
  {
    AutocastGuard outer(c10::DeviceType::CPU, true);
    EXPECT_TRUE(AutocastGuard::is_enabled(c10::DeviceType::CPU));
    EXPECT_EQ(torch::matmul(a, b).scalar_type(), torch::kBFloat16);
    {
      AutocastGuard inner(c10::DeviceType::CPU, true);
      EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kBFloat16);
    }
    EXPECT_TRUE(AutocastGuard::is_enabled(c10::DeviceType::CPU))
        << "the inner guard restores the outer state";
    EXPECT_EQ(torch::matmul(a, b).scalar_type(), torch::kBFloat16);
  }
  EXPECT_FALSE(AutocastGuard::is_enabled(c10::DeviceType::CPU));
  EXPECT_EQ(AutocastGuard::dtype(c10::DeviceType::CPU), dtype_before);
  // fp16 on the CPU: LibTorch 1.13 refuses it (2.x may accept it). Either way nothing is left on.
  try {
    AutocastGuard other(c10::DeviceType::CPU, true, c10::kHalf);
    EXPECT_EQ(AutocastGuard::dtype(c10::DeviceType::CPU), c10::kHalf);
  } catch (const c10::Error&) {
  }
  EXPECT_FALSE(AutocastGuard::is_enabled(c10::DeviceType::CPU));
  EXPECT_EQ(AutocastGuard::dtype(c10::DeviceType::CPU), dtype_before);
  EXPECT_EQ(torch::matmul(a, b).scalar_type(), torch::kFloat);
  // CUDA autocast state is separate and untouched.
  EXPECT_FALSE(AutocastGuard::is_enabled(c10::DeviceType::CUDA));
}

TEST(AutocastGuard, PrecisionChoice) {
  EXPECT_FALSE(use_bf16_autocast("auto", c10::DeviceType::CPU));
  EXPECT_TRUE(use_bf16_autocast("auto", c10::DeviceType::CUDA));
  EXPECT_FALSE(use_bf16_autocast("fp32", c10::DeviceType::CUDA));
  EXPECT_TRUE(use_bf16_autocast("bf16", c10::DeviceType::CUDA));
  EXPECT_TRUE(use_bf16_autocast("bf16", c10::DeviceType::CPU));
  try {
    use_bf16_autocast("bf16", c10::DeviceType::Meta);
    ADD_FAILURE() << "bf16 on a device without autocast must be refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--precision"), std::string::npos) << e.what();
  }
  EXPECT_THROW(use_bf16_autocast("fp16", c10::DeviceType::CUDA), std::invalid_argument);
}

struct Steps : TrainObserver {
  std::vector<StepEvent> steps;
  void on_step(const StepEvent& e) override { steps.push_back(e); }
};

std::vector<StepEvent> train(const std::string& precision, const std::string& dir) {
  static test::InMemoryPairedData train_data(32, 1), test_data(14, 2);
  TrainConfig c;
  c.epochs = 2;
  c.batch_size = 8;
  c.lr = 2e-3;
  c.seed = 3;
  c.device = hnclip::DeviceSpec{hnclip::DeviceKind::kCpu};
  c.loss_gamma = 0.5;
  c.loss_token_weight = 0.1;
  from_string(precision, c.precision);
  Trainer trainer(
      make_clip_model(test::tiny_test_config(), 42), c, train_data, test_data,
      [](const PairedData& d) { return std::make_unique<test::SyncBatchSource>(d); }, dir,
      nlohmann::json());
  Steps s;
  trainer.add_observer(&s);
  std::atomic<bool> stop{false};
  EXPECT_EQ(trainer.run({}, stop).status, "finished");
  return s.steps;
}

TEST(AutocastGuard, TrainerOnTheCpuIsFp32) {
  test::ScratchDir a, b;
  const auto fp32 = train("fp32", a.path().string());
  const auto autoc = train("auto", b.path().string());
  ASSERT_EQ(fp32.size(), 8u);
  ASSERT_EQ(autoc.size(), 8u);
  // auto on the CPU is fp32: the very same numbers.
  for (size_t i = 0; i < fp32.size(); ++i) EXPECT_EQ(autoc[i].loss, fp32[i].loss) << i;
  EXPECT_FALSE(AutocastGuard::is_enabled(c10::DeviceType::CPU))
      << "no autocast left on after training";
}

// The encoders run under CPU bf16 autocast (LibTorch 1.13's CPU kernel refuses a bf16 input to a
// LayerNorm with fp32 weights; model/layer_norm_fp32.h is what makes this possible): the features
// come out of the products in bf16, close to fp32's, and every LayerNorm's output is fp32.
TEST(AutocastGuard, EncodersRunUnderCpuBf16) {
  auto m = make_clip_model(test::tiny_test_config(), 5);
  torch::manual_seed(1);
  const auto imgs = torch::randn({4, 3, test::kTinyImage, test::kTinyImage});
  auto tokens = torch::randint(1, test::kTinyVocab - 1, {4, test::kTinyContext}, torch::kLong);
  tokens.select(1, test::kTinyContext - 2).fill_(test::kTinyVocab - 1);  // the end token
  torch::NoGradGuard no_grad;
  const auto i32 = m->encode_image(imgs).pooled;
  const auto t32 = m->encode_text(tokens).pooled;
  torch::Tensor i16, t16;
  {
    AutocastGuard g(c10::DeviceType::CPU, true);
    i16 = m->encode_image(imgs).pooled;
    t16 = m->encode_text(tokens).pooled;
  }
  EXPECT_EQ(i16.scalar_type(), torch::kBFloat16);
  EXPECT_EQ(t16.scalar_type(), torch::kBFloat16);
  // bf16 keeps 8 bits of mantissa: a relative error of a few 1e-3 per product, a little more
  // after a few layers; a wrong path (garbage weights, a missing norm) is off by O(1).
  const auto rel = [](const torch::Tensor& a, const torch::Tensor& b) {
    return ((a.to(torch::kFloat) - b).norm() / b.norm()).item<double>();
  };
  EXPECT_LT(rel(i16, i32), 3e-2);
  EXPECT_LT(rel(t16, t32), 3e-2);
  EXPECT_GT(rel(i16, i32), 0.0) << "the products really ran in bf16";
}

// Training with --precision bf16 on the CPU: the loss stays fp32 and close to the fp32 run's at
// the first step (same weights, same batch), training moves it, and no autocast is left on.
TEST(AutocastGuard, TrainerTrainsInBf16OnTheCpu) {
  test::ScratchDir a, b;
  const auto fp32 = train("fp32", a.path().string());
  const auto bf16 = train("bf16", b.path().string());
  ASSERT_EQ(bf16.size(), fp32.size());
  EXPECT_NEAR(bf16.front().loss, fp32.front().loss, 2e-2 * std::abs(fp32.front().loss));
  EXPECT_NE(bf16.front().loss, fp32.front().loss) << "the encoders ran in bf16";
  for (const auto& s : bf16) EXPECT_TRUE(std::isfinite(s.loss));
  EXPECT_LT(bf16.back().loss, bf16.front().loss);
  EXPECT_FALSE(AutocastGuard::is_enabled(c10::DeviceType::CPU));
}

}  // namespace
}  // namespace hnclip

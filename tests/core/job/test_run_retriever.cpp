// RunRetriever (core/job/run_retriever.h) and its cache file (core/job/split_embeddings_file.h):
// a stored run on a small manifest benchmark written here, with a checkpoint of an untrained
// tiny model. Ad-hoc and stored-query top-k are compared with a brute-force reference (every
// image encoded directly, one full matrix product); the cache is reused, invalidated when the
// checkpoint file changes or the manifest is written again, and a corrupt or contradicting cache
// file is refused naming it.

#include <gtest/gtest.h>

#include <torch/torch.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "job/run_assets.h"
#include "job/run_retriever.h"
#include "job/split_embeddings_file.h"
#include "store/run_store.h"
#include "support/test_dirs.h"
#include "train/checkpoint.h"
#include "train/train_config.h"

namespace {

namespace fs = std::filesystem;
using hnclip::RunRetriever;

constexpr int kTestImages = 10;
const char* kColors[] = {"red", "green", "blue", "yellow", "white"};
const char* kShapes[] = {"circle", "square"};

class RunRetrieverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write_manifest(kTestImages, /*captions_swapped=*/false);
    config.benchmark = "manifest";
    config.benchmark_root = (dir / "manifest.jsonl").string();
    config.epochs = 1;
    config.batch_size = 4;
    config.device = hnclip::DeviceSpec{hnclip::DeviceKind::kCpu};
    config.threads = 1;
    options.database = (dir / "runs.db").string();
    options.cache_dir = (dir / "cache").string();
    options.batch_size = 3;  // several batches per split
    hnclip::RunStore store(options.database);
    hnclip::RunRecord r;
    r.name = "retrieval";
    r.status = hnclip::RunStatus::Finished;
    r.config_json = nlohmann::json(config).dump();
    options.run_id = store.create_run(r);
    checkpoint = (dir / "epoch-1.pt").string();
    write_checkpoint(1);
    store.add_checkpoint(options.run_id, {1, 10, checkpoint, 0.0, 0});
    store.set_best_epoch(options.run_id, 1);
  }

  // Images: a coloured shape per image; captions say which (test: `test_images`, train: 6).
  // `captions_swapped` writes each image's two captions in the other order.
  void write_manifest(int test_images, bool captions_swapped) {
    const fs::path images = dir / "img";
    fs::create_directories(images);
    std::ofstream m(dir / "manifest.jsonl");
    for (int i = 0; i < test_images + 6; ++i) {
      const bool test = i < test_images;
      const cv::Scalar bgr(37 * i % 256, 91 * i % 256, 53 * i % 256);
      cv::Mat img(40, 40, CV_8UC3, cv::Scalar(20, 20, 20));
      if (i % 2)
        cv::circle(img, {20, 20}, 6 + i, bgr, -1);
      else
        cv::rectangle(img, {5 + i % 5, 5}, {30, 20 + i}, bgr, -1);
      const std::string name = "img/" + std::to_string(i) + ".png";
      ASSERT_TRUE(cv::imwrite((dir / name).string(), img));
      std::string c1 = std::string("a ") + kColors[i % 5] + " " + kShapes[i % 2] + " number " +
                       std::to_string(i);
      std::string c2 = std::string("the ") + kShapes[i % 2] + " is " + kColors[(i + 1) % 5];
      if (captions_swapped) std::swap(c1, c2);
      m << R"({"image": ")" << name << R"(", "captions": [")" << c1 << R"(", ")" << c2
        << R"("], "split": ")" << (test ? "test" : "train") << "\"}\n";
    }
  }

  // A tiny model with weights from `seed` written as the run's epoch-1 checkpoint.
  void write_checkpoint(uint64_t seed) {
    auto c = config;
    c.seed = seed;
    auto assets = hnclip::build_run_assets(c, options.cache_dir, "", {});
    hnclip::CheckpointMeta meta;
    meta.model = assets.model->config();
    meta.tokenizer = assets.tokenizer->to_json();
    meta.epoch = 1;
    meta.step = 10;
    meta.run_id = options.run_id;
    meta.train_config = nlohmann::json(c);
    hnclip::save_checkpoint(checkpoint, assets.model, meta);
  }

  // Brute force: the run's assets rebuilt, checkpoint loaded (none: its starting model), all test
  // images in one batch.
  struct Reference {
    torch::Tensor images, captions;
    hnclip::RunAssets assets;
  };
  Reference reference(bool start_model = false) {
    Reference ref;
    ref.assets =
        hnclip::build_run_assets(config, options.cache_dir, start_model ? "" : checkpoint, {});
    if (!start_model) hnclip::load_checkpoint_weights(checkpoint, ref.assets.model);
    ref.assets.model->eval();
    torch::NoGradGuard no_grad;
    std::vector<int64_t> all_images(ref.assets.test->num_images()),
        all_captions(ref.assets.test->num_captions());
    for (size_t i = 0; i < all_images.size(); ++i) all_images[i] = static_cast<int64_t>(i);
    for (size_t i = 0; i < all_captions.size(); ++i) all_captions[i] = static_cast<int64_t>(i);
    namespace F = torch::nn::functional;
    ref.images = F::normalize(
        ref.assets.model->encode_image(ref.assets.test->load_images(all_images)).pooled,
        F::NormalizeFuncOptions().dim(-1));
    ref.captions = F::normalize(
        ref.assets.model->encode_text(ref.assets.test->load_tokens(all_captions)).pooled,
        F::NormalizeFuncOptions().dim(-1));
    return ref;
  }

  // Compares a top-k list with the brute-force score row (full sort, descending).
  static void expect_matches(const std::vector<hnclip::ScoredCandidate>& got,
                             const torch::Tensor& scores, int64_t k) {
    const auto sorted = scores.sort(0, /*descending=*/true);
    const auto values = std::get<0>(sorted), ids = std::get<1>(sorted);
    ASSERT_EQ(static_cast<int64_t>(got.size()), std::min<int64_t>(k, scores.size(0)));
    for (size_t r = 0; r < got.size(); ++r) {
      EXPECT_NEAR(got[r].score, values[r].item<float>(), 1e-5) << "rank " << r + 1;
      // Ids agree unless two scores are within float noise of each other.
      const bool tie_before =
          r > 0 && std::abs(values[r].item<float>() - values[r - 1].item<float>()) < 1e-5;
      const bool tie_after = static_cast<int64_t>(r) + 1 < scores.size(0) &&
                             std::abs(values[r].item<float>() - values[r + 1].item<float>()) < 1e-5;
      if (!tie_before && !tie_after) {
        EXPECT_EQ(got[r].id, ids[r].item<int64_t>()) << "rank " << r + 1;
      }
      // Whatever the id, its score is the reference score of that id.
      EXPECT_NEAR(got[r].score, scores[got[r].id].item<float>(), 1e-5);
    }
  }

  hnclip::test::ScratchDir dir;
  hnclip::TrainConfig config;
  hnclip::RunRetrieverOptions options;
  std::string checkpoint;
};

TEST_F(RunRetrieverTest, AdhocQueryMatchesBruteForce) {
  auto retriever = RunRetriever::open(options);
  EXPECT_EQ(retriever->epoch(), 1);
  EXPECT_FALSE(retriever->embeddings_from_cache());
  auto ref = reference();
  const auto& e = retriever->embeddings();
  ASSERT_EQ(e.num_images, kTestImages);
  ASSERT_EQ(e.num_captions, 2 * kTestImages);
  // The cached image embeddings are the directly encoded ones (batching does not change them).
  const auto cached =
      torch::from_blob(const_cast<float*>(e.images.data()), {e.num_images, e.dim}).clone();
  EXPECT_TRUE(torch::allclose(cached, ref.images, 1e-5, 1e-5));

  for (const std::string text : {"a red circle number 3", "the square is blue", "green"}) {
    const auto tokens =
        torch::tensor(ref.assets.tokenizer->encode(text), torch::kInt64).unsqueeze(0);
    torch::Tensor q;
    {
      torch::NoGradGuard no_grad;
      q = torch::nn::functional::normalize(ref.assets.model->encode_text(tokens).pooled,
                                           torch::nn::functional::NormalizeFuncOptions().dim(-1));
    }
    const auto scores = torch::mm(ref.images, q.t()).squeeze(1);
    SCOPED_TRACE(text);
    expect_matches(retriever->query_text(text, 5), scores, 5);
    expect_matches(retriever->query_text(text, 100), scores, 100);  // k beyond the split: all of it
  }
  // Stored queries, both directions, k beyond the store's 10.
  for (int64_t c : {0, 7, 19}) {
    SCOPED_TRACE("t2i caption " + std::to_string(c));
    expect_matches(retriever->query_topk("t2i", c, 10), torch::mv(ref.images, ref.captions[c]), 10);
  }
  for (int64_t i : {0, 9}) {
    SCOPED_TRACE("i2t image " + std::to_string(i));
    expect_matches(retriever->query_topk("i2t", i, 12), torch::mv(ref.captions, ref.images[i]), 12);
  }
  EXPECT_THROW(retriever->query_topk("t2i", 20, 5), std::out_of_range);
  EXPECT_THROW(retriever->query_topk("x2y", 0, 5), std::invalid_argument);
  // Neighbours leave the caption itself out.
  const auto n = retriever->caption_neighbors(4, 3);
  ASSERT_EQ(n.size(), 3u);
  for (const auto& c : n) EXPECT_NE(c.id, 4);
  auto row = torch::mv(ref.captions, ref.captions[4]);
  row[4] = -10;
  expect_matches(n, row, 3);
}

// Epoch 0 has no checkpoint: the Retrieval tab offered it, then said "no checkpoint for it". It is
// the run's starting model — the random weights of its seed here, its --init file below.
TEST_F(RunRetrieverTest, EpochZeroIsTheRunsStartingModel) {
  options.epoch = 0;
  auto start = RunRetriever::open(options);
  EXPECT_EQ(start->epoch(), 0);
  const auto ref = reference(/*start_model=*/true);
  const auto& e = start->embeddings();
  ASSERT_EQ(e.num_images, kTestImages);
  const auto got =
      torch::from_blob(const_cast<float*>(e.images.data()), {e.num_images, e.dim}).clone();
  EXPECT_TRUE(torch::allclose(got, ref.images, 1e-5, 1e-5));
  EXPECT_FALSE(torch::allclose(got, reference().images, 1e-3, 1e-3)) << "that is epoch 1's model";
  for (int64_t c : {0, 7}) {
    SCOPED_TRACE("t2i caption " + std::to_string(c));
    expect_matches(start->query_topk("t2i", c, 5), torch::mv(ref.images, ref.captions[c]), 5);
  }
  EXPECT_TRUE(start->cache_file().empty()) << "random weights have no file to key a cache by";

  // Started from a checkpoint file: that file's weights, cached under it.
  auto init_config = config;
  init_config.seed = 5;
  const std::string init = (dir / "start.pt").string();
  {
    auto assets = hnclip::build_run_assets(init_config, options.cache_dir, "", {});
    hnclip::CheckpointMeta meta;
    meta.model = assets.model->config();
    meta.tokenizer = assets.tokenizer->to_json();
    hnclip::save_checkpoint(init, assets.model, meta);
  }
  config.init = init;
  {
    hnclip::RunStore store(options.database);
    hnclip::RunRecord r;
    r.status = hnclip::RunStatus::Finished;
    r.config_json = nlohmann::json(config).dump();
    options.run_id = store.create_run(r);
  }
  const auto from_file = RunRetriever::open(options);
  const auto file_ref = reference(/*start_model=*/true);
  const auto& f = from_file->embeddings();
  EXPECT_TRUE(torch::allclose(
      torch::from_blob(const_cast<float*>(f.images.data()), {f.num_images, f.dim}).clone(),
      file_ref.images, 1e-5, 1e-5));
  EXPECT_FALSE(from_file->cache_file().empty());
  EXPECT_TRUE(RunRetriever::open(options)->embeddings_from_cache());
}

TEST_F(RunRetrieverTest, CacheIsReusedAndInvalidatedWhenTheCheckpointChanges) {
  std::vector<float> first;
  {
    auto r = RunRetriever::open(options);
    EXPECT_FALSE(r->embeddings_from_cache());
    EXPECT_TRUE(fs::exists(r->cache_file()));
    first = r->embeddings().images;
  }
  {
    auto r = RunRetriever::open(options);
    EXPECT_TRUE(r->embeddings_from_cache());
    EXPECT_EQ(r->embeddings().images, first);
  }
  // The run's checkpoint is rewritten in place with other weights (as a resumed run would):
  // the cache must not serve the old embeddings.
  std::this_thread::sleep_for(
      std::chrono::milliseconds(20));  // a distinct mtime even on coarse clocks
  write_checkpoint(7);
  auto r = RunRetriever::open(options);
  EXPECT_FALSE(r->embeddings_from_cache());
  EXPECT_NE(r->embeddings().images, first);
  const auto ref = reference();
  const auto& e = r->embeddings();
  const auto cached =
      torch::from_blob(const_cast<float*>(e.images.data()), {e.num_images, e.dim}).clone();
  EXPECT_TRUE(torch::allclose(cached, ref.images, 1e-5, 1e-5));
  EXPECT_EQ(hnclip::read_split_embeddings_header(r->cache_file()).checkpoint,
            hnclip::CheckpointStamp::of(checkpoint));
}

// The cache is keyed by the manifest's path: a manifest written again (here the same counts,
// so nothing else would notice) must be encoded again, and one with other counts too, rather
// than refused with "delete the file".
TEST_F(RunRetrieverTest, AManifestWrittenAgainIsEncodedAgain) {
  std::vector<float> first;
  {
    auto r = RunRetriever::open(options);
    first = r->embeddings().captions;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  write_manifest(kTestImages, /*captions_swapped=*/true);
  std::vector<std::string> log;
  const auto progress = [&](int64_t, int64_t total, const std::string& m) {
    if (total == 0) log.push_back(m);
  };
  {
    auto r = RunRetriever::open(options, progress);
    EXPECT_FALSE(r->embeddings_from_cache());
    EXPECT_NE(r->embeddings().captions, first);
    const auto ref = reference();
    const auto& e = r->embeddings();
    const auto cached =
        torch::from_blob(const_cast<float*>(e.captions.data()), {e.num_captions, e.dim}).clone();
    EXPECT_TRUE(torch::allclose(cached, ref.captions, 1e-5, 1e-5));
  }
  const bool said = std::any_of(log.begin(), log.end(), [](const std::string& m) {
    return m.find("manifest.jsonl was written again") != std::string::npos;
  });
  EXPECT_TRUE(said) << "the log does not say why the split is encoded again";
  // Once encoded again, the cache serves it.
  EXPECT_TRUE(RunRetriever::open(options)->embeddings_from_cache());

  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  write_manifest(kTestImages - 2, /*captions_swapped=*/false);
  auto r = RunRetriever::open(options);
  EXPECT_FALSE(r->embeddings_from_cache());
  EXPECT_EQ(r->embeddings().num_images, kTestImages - 2);
  EXPECT_EQ(r->embeddings().num_captions, 2 * (kTestImages - 2));
}

// A run recorded with a data summary (as `train` writes it) whose test split is no longer the one
// its manifest path holds: the tab would show its stored ranks beside other captions, so the run
// is refused naming how the split changed; a summary that agrees opens.
TEST_F(RunRetrieverTest, ARunWhoseTestSplitChangedIsRefused) {
  hnclip::RunStore store(options.database);
  nlohmann::json summary = {
      {"splits", {{"test", {{"images", kTestImages}, {"captions", 2 * kTestImages}}}}}};
  store.set_data_summary(options.run_id, summary.dump());
  EXPECT_NO_THROW(RunRetriever::open(options));
  summary["splits"]["test"]["images"] = kTestImages + 1;
  store.set_data_summary(options.run_id, summary.dump());
  try {
    RunRetriever::open(options);
    ADD_FAILURE() << "a run whose test split changed was opened";
  } catch (const hnclip::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("its test split holds 10 images, 20 captions, not the 11 "
                                         "images, 20 captions it held"),
              std::string::npos)
        << e.what();
  }
}

// Runs `f`, expects EmbeddingCacheError whose message names `file` and contains `what`.
template <typename F>
void expect_cache_error(F f, const std::string& file, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << "no EmbeddingCacheError for " << file;
  } catch (const hnclip::EmbeddingCacheError& e) {
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

TEST_F(RunRetrieverTest, CorruptOrContradictingCacheFileIsRefusedNamingIt) {
  std::string file;
  hnclip::SplitEmbeddings good;
  {
    auto r = RunRetriever::open(options);
    file = r->cache_file();
    good = r->embeddings();
  }
  const auto size = fs::file_size(file);
  fs::resize_file(file, size - 9);
  expect_cache_error([&] { RunRetriever::open(options); }, file, "truncated");
  expect_cache_error([&] { hnclip::read_split_embeddings(file); }, file, "truncated");

  { std::ofstream(file, std::ios::binary | std::ios::trunc) << "not an embeddings file at all"; }
  expect_cache_error([&] { RunRetriever::open(options); }, file, "bad magic");

  // Right checkpoint and dataset, but fewer images than the split has.
  auto wrong = good;
  wrong.num_images -= 1;
  wrong.images.resize(static_cast<size_t>(wrong.num_images * wrong.dim));
  hnclip::write_split_embeddings(file, wrong);
  expect_cache_error([&] { RunRetriever::open(options); }, file, "holds 9 images");

  // Extra bytes after the vectors.
  hnclip::write_split_embeddings(file, good);
  { std::ofstream(file, std::ios::binary | std::ios::app) << "xyz"; }
  expect_cache_error([&] { hnclip::read_split_embeddings(file); }, file, "3 bytes after");

  // Once the bad file is removed, it is recomputed.
  fs::remove(file);
  EXPECT_FALSE(RunRetriever::open(options)->embeddings_from_cache());
}

TEST_F(RunRetrieverTest, ReportsProgressAndStopsWhenCancelled) {
  std::atomic<bool> cancel{false};
  int64_t last_done = 0, last_total = 0;
  int batches = 0;
  auto progress = [&](int64_t done, int64_t total, const std::string&) {
    if (total == 0) return;  // a message without counts
    EXPECT_GT(done, last_done);
    last_done = done;
    last_total = total;
    if (++batches == 2) cancel = true;  // cancelled while encoding: stops at the next batch
  };
  EXPECT_THROW(RunRetriever::open(options, progress, &cancel), hnclip::RetrievalCancelled);
  EXPECT_EQ(batches, 2);
  EXPECT_EQ(last_total, 3 * kTestImages);  // images + captions
  EXPECT_FALSE(fs::exists(fs::path(options.cache_dir) / "split-embeddings"))
      << "nothing cached after a cancel";

  cancel = false;
  batches = 0;
  last_done = 0;
  auto r = RunRetriever::open(
      options,
      [&](int64_t done, int64_t total, const std::string&) {
        if (total > 0) last_done = done;
      },
      &cancel);
  EXPECT_EQ(last_done, 3 * kTestImages);
}

TEST(SplitEmbeddingsFile, RoundTripsExactly) {
  hnclip::test::ScratchDir dir;
  hnclip::SplitEmbeddings e;
  e.checkpoint = {"/x/ckpt.pt", 1234, 5678};
  e.dataset_key = "synthetic:size=small:seed=1#test";
  e.num_images = 2;
  e.num_captions = 3;
  e.dim = 2;
  e.images = {0.5f, -0.25f, 1e-30f, 3.0f};
  e.captions = {1, 2, 3, 4, 5, std::numeric_limits<float>::denorm_min()};
  const auto file =
      hnclip::split_embeddings_path((dir / "cache").string(), "/x/ckpt.pt", e.dataset_key);
  EXPECT_NE(file,
            hnclip::split_embeddings_path((dir / "cache").string(), "/x/ckpt.pt", "other#test"));
  hnclip::write_split_embeddings(file, e);
  const auto back = hnclip::read_split_embeddings(file);
  EXPECT_EQ(back.checkpoint, e.checkpoint);
  EXPECT_EQ(back.dataset_key, e.dataset_key);
  EXPECT_EQ(back.images, e.images);
  EXPECT_EQ(back.captions, e.captions);
  EXPECT_EQ(back.num_captions, 3);
  EXPECT_THROW(hnclip::read_split_embeddings((dir / "missing.bin").string()),
               hnclip::EmbeddingCacheError);
}

TEST(TopKByDot, BestFirstTiesByIndexAndSkip) {
  const float q[2] = {1, 0};
  const float c[8] = {0.5f, 0, 0.9f, 0, 0.5f, 1, -1, 0};
  const auto r = hnclip::top_k_by_dot(q, c, 4, 2, 3);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].id, 1);
  EXPECT_EQ(r[1].id, 0);  // tie with 2 at 0.5: lower index first
  EXPECT_EQ(r[2].id, 2);
  const auto s = hnclip::top_k_by_dot(q, c, 4, 2, 10, 1);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].id, 0);
}

}  // namespace

#include "job/run_retriever.h"

#include <torch/torch.h>

#include <algorithm>
#include <filesystem>
#include <mutex>

#include "data/batch_loader.h"
#include "data/benchmark_summary.h"
#include "job/caption_geometry_job.h"
#include "job/run_assets.h"
#include "job/run_benchmark_spec.h"
#include "job/run_checkpoint.h"
#include "job/stored_run_config.h"
#include "job/unchanged_run_data.h"
#include "store/run_store.h"
#include "text/word_tokenizer.h"
#include "train/checkpoint.h"
#include "train/compute_setup.h"
#include "train/train_config.h"

namespace hnclip {

namespace {

namespace fs = std::filesystem;

std::vector<float> to_floats(const torch::Tensor& t) {
  const auto c = t.to(torch::kCPU, torch::kFloat32).contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

torch::Tensor normalized(const torch::Tensor& f) {
  return torch::nn::functional::normalize(f, torch::nn::functional::NormalizeFuncOptions().dim(-1));
}

}  // namespace

struct RunRetriever::Impl {
  int64_t run_id = 0;
  int epoch = 0;
  std::string checkpoint;
  std::string cache_file;
  bool from_cache = false;
  SplitEmbeddings embeddings;
  std::shared_ptr<const Tokenizer> tokenizer;
  mutable std::mutex model_mutex;                   // one ad-hoc encoding at a time
  mutable ClipModel model{nullptr};
  c10::Device device = c10::Device(c10::kCPU);

  // Encodes the whole test split, batch by batch, checking `cancel` between batches.
  void encode_split(const SplitData& data, const RunRetrieverOptions& o, const RetrievalProgress& progress,
                    const std::atomic<bool>* cancel) {
    torch::NoGradGuard no_grad;
    std::vector<BatchRequest> requests;
    for (int64_t s = 0; s < data.num_images(); s += o.batch_size) {
      BatchRequest r;
      for (int64_t i = s; i < std::min(data.num_images(), s + o.batch_size); ++i) r.images.push_back(i);
      requests.push_back(std::move(r));
    }
    for (int64_t s = 0; s < data.num_captions(); s += o.batch_size) {
      BatchRequest r;
      for (int64_t i = s; i < std::min(data.num_captions(), s + o.batch_size); ++i) r.captions.push_back(i);
      requests.push_back(std::move(r));
    }
    const int64_t total = data.num_images() + data.num_captions();
    BatchLoader loader(data, o.loader_workers);
    loader.schedule(std::move(requests));
    std::vector<torch::Tensor> images, captions;
    int64_t done = 0;
    Batch batch;
    while (loader.next(batch)) {
      if (cancel && cancel->load()) throw RetrievalCancelled("run " + std::to_string(run_id) + ": encoding cancelled");
      if (!batch.request.images.empty()) {
        images.push_back(normalized(model->encode_image(batch.images.to(device)).pooled).cpu());
        done += static_cast<int64_t>(batch.request.images.size());
      } else {
        captions.push_back(normalized(model->encode_text(batch.tokens.to(device)).pooled).cpu());
        done += static_cast<int64_t>(batch.request.captions.size());
      }
      if (progress) progress(done, total, "run " + std::to_string(run_id) + ": encoding the test split");
    }
    const auto img = torch::cat(images, 0), cap = torch::cat(captions, 0);
    embeddings.num_images = img.size(0);
    embeddings.num_captions = cap.size(0);
    embeddings.dim = img.size(1);
    embeddings.images = to_floats(img);
    embeddings.captions = to_floats(cap);
  }
};

RunRetriever::RunRetriever(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RunRetriever::~RunRetriever() = default;

std::unique_ptr<RunRetriever> RunRetriever::open(const RunRetrieverOptions& o, const RetrievalProgress& progress,
                                                 const std::atomic<bool>* cancel) {
  auto impl = std::make_unique<Impl>();
  impl->run_id = o.run_id;
  auto log = [&](const std::string& m) {
    if (progress) progress(0, 0, m);
  };
  TrainConfig config;
  RunRecord run;
  // Epoch 0 has no checkpoint of its own: it is the run's starting model, its --init or the random
  // weights of its seed, rebuilt as the run built it (the tab offered epoch 0 and then had no
  // scores or typed queries for it).
  bool start_model = false;
  {
    RunStore store(o.database);
    const auto chosen = choose_run_checkpoint(store, o.database, o.run_id,
                                              o.epoch < 0 ? "best" : std::to_string(o.epoch));
    run = chosen.run;
    config = stored_run_config(chosen.run);
    if (!chosen.note.empty()) log(chosen.note);  // a start model's says which weights
    start_model = chosen.start_model;
    impl->epoch = chosen.checkpoint.epoch;
    impl->checkpoint = chosen.checkpoint.path;  // a start model's: its --init file, or ""
  }
  if (cancel && cancel->load()) throw RetrievalCancelled("run " + std::to_string(o.run_id) + ": cancelled");
  if (!start_model)
    log("run " + std::to_string(o.run_id) + ": loading checkpoint " + impl->checkpoint);
  auto assets = build_run_assets(config, o.cache_dir, start_model ? "" : impl->checkpoint, log);
  // The tab shows the run's stored ranks beside the split's captions and images: of one data set.
  refuse_changed_run_data(run, benchmark_data_label(run_benchmark_spec(config, o.cache_dir)),
                          benchmark_summary(*assets.benchmark), {config.test_split},
                          "Its stored ranks are of the earlier data, so it is not shown beside "
                          "the data as it is now; put the data back as it was to browse it.");
  if (!start_model) load_checkpoint_weights(impl->checkpoint, assets.model);
  impl->device = resolve_device(o.device);
  impl->model = assets.model;
  impl->model->to(impl->device);
  impl->model->eval();
  impl->tokenizer = assets.tokenizer;
  const SplitData& test = *assets.test;

  std::string dataset_key = caption_dataset_key(run_benchmark_spec(config, o.cache_dir), config.test_split);
  // One CLIP file starts runs as different models (stretched to Long-CLIP or not, another
  // --activation): a start model's cache is keyed by how the run read its --init too.
  if (start_model)
    dataset_key += "\nstarting model: long_clip " + std::to_string(config.long_clip) +
                   ", activation '" + config.init_activation + "'";
  // Random starting weights have no file to key a cache by (nor a folder-shaped --init a stamp):
  // encoded every time.
  if (!fs::is_regular_file(impl->checkpoint)) {
    impl->encode_split(test, o, progress, cancel);
    return std::unique_ptr<RunRetriever>(new RunRetriever(std::move(impl)));
  }
  const CheckpointStamp stamp = CheckpointStamp::of(impl->checkpoint);
  impl->cache_file = split_embeddings_path(o.cache_dir, impl->checkpoint, dataset_key);
  // The key names the data set by its path: a manifest written again after the cache (other
  // captions, other images, perhaps the same counts) makes the cached vectors another split's.
  const std::string& data_file = config.benchmark_root;
  const bool data_rewritten =
      fs::exists(impl->cache_file) && !data_file.empty() && fs::is_regular_file(data_file) &&
      CheckpointStamp::of(data_file).mtime_ns > CheckpointStamp::of(impl->cache_file).mtime_ns;
  if (data_rewritten) {
    log("run " + std::to_string(o.run_id) + ": the data set file " + data_file +
        " was written again after " + impl->cache_file + "; recomputing");
  } else if (fs::exists(impl->cache_file)) {
    const SplitEmbeddings header = read_split_embeddings_header(impl->cache_file);
    if (header.checkpoint == stamp && header.dataset_key == dataset_key) {
      impl->embeddings = read_split_embeddings(impl->cache_file);
      const auto& e = impl->embeddings;
      if (e.num_images != test.num_images() || e.num_captions != test.num_captions() ||
          e.dim != impl->model->config().embed_dim) {
        throw EmbeddingCacheError("embedding cache " + impl->cache_file + ": holds " + std::to_string(e.num_images) +
                                  " images / " + std::to_string(e.num_captions) + " captions of dimension " +
                                  std::to_string(e.dim) + ", but split " + dataset_key + " has " +
                                  std::to_string(test.num_images()) + " / " + std::to_string(test.num_captions()) +
                                  " and the model's dimension is " + std::to_string(impl->model->config().embed_dim) +
                                  " (delete the file to recompute)");
      }
      impl->from_cache = true;
      log("run " + std::to_string(o.run_id) + ": embeddings read from " + impl->cache_file);
    } else {
      log("run " + std::to_string(o.run_id) + ": checkpoint changed since " + impl->cache_file + " was written; recomputing");
    }
  }
  if (!impl->from_cache) {
    impl->encode_split(test, o, progress, cancel);
    impl->embeddings.checkpoint = stamp;
    impl->embeddings.dataset_key = dataset_key;
    write_split_embeddings(impl->cache_file, impl->embeddings);
  }
  return std::unique_ptr<RunRetriever>(new RunRetriever(std::move(impl)));
}

int64_t RunRetriever::run_id() const { return impl_->run_id; }
int RunRetriever::epoch() const { return impl_->epoch; }
const std::string& RunRetriever::checkpoint_path() const { return impl_->checkpoint; }
const std::string& RunRetriever::cache_file() const { return impl_->cache_file; }
bool RunRetriever::embeddings_from_cache() const { return impl_->from_cache; }
const SplitEmbeddings& RunRetriever::embeddings() const { return impl_->embeddings; }

std::vector<float> RunRetriever::encode_text(const std::string& text) const {
  const std::vector<int64_t> ids = impl_->tokenizer->encode(text);
  std::lock_guard<std::mutex> lock(impl_->model_mutex);
  torch::NoGradGuard no_grad;
  const auto tokens = torch::tensor(ids, torch::kInt64).unsqueeze(0).to(impl_->device);
  return to_floats(normalized(impl_->model->encode_text(tokens).pooled).squeeze(0));
}

std::vector<std::string> RunRetriever::unknown_words(const std::string& text) const {
  const auto* word = dynamic_cast<const WordTokenizer*>(impl_->tokenizer.get());
  return word ? word->unknown_words(text) : std::vector<std::string>{};
}

std::vector<ScoredCandidate> RunRetriever::query_text(const std::string& text, int64_t k) const {
  const auto q = encode_text(text);
  const auto& e = impl_->embeddings;
  return top_k_by_dot(q.data(), e.images.data(), e.num_images, e.dim, k);
}

std::vector<ScoredCandidate> RunRetriever::query_topk(const std::string& direction, int64_t query, int64_t k) const {
  const auto& e = impl_->embeddings;
  if (direction == "t2i") {
    if (query < 0 || query >= e.num_captions) throw std::out_of_range("caption query " + std::to_string(query) + " is outside the split");
    return top_k_by_dot(e.caption_row(query), e.images.data(), e.num_images, e.dim, k);
  }
  if (direction == "i2t") {
    if (query < 0 || query >= e.num_images) throw std::out_of_range("image query " + std::to_string(query) + " is outside the split");
    return top_k_by_dot(e.image_row(query), e.captions.data(), e.num_captions, e.dim, k);
  }
  throw std::invalid_argument("direction must be t2i or i2t (got '" + direction + "')");
}

std::vector<ScoredCandidate> RunRetriever::caption_neighbors(int64_t caption, int64_t k) const {
  const auto& e = impl_->embeddings;
  if (caption < 0 || caption >= e.num_captions) throw std::out_of_range("caption " + std::to_string(caption) + " is outside the split");
  return top_k_by_dot(e.caption_row(caption), e.captions.data(), e.num_captions, e.dim, k, caption);
}

std::vector<ScoredCandidate> top_k_by_dot(const float* query, const float* candidates, int64_t n, int64_t dim,
                                          int64_t k, int64_t skip) {
  std::vector<ScoredCandidate> all;
  all.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (i == skip) continue;
    const float* row = candidates + i * dim;
    float s = 0;
    for (int64_t d = 0; d < dim; ++d) s += query[d] * row[d];
    all.push_back({i, s});
  }
  const auto better = [](const ScoredCandidate& a, const ScoredCandidate& b) {
    return a.score != b.score ? a.score > b.score : a.id < b.id;
  };
  const auto m = static_cast<size_t>(std::clamp<int64_t>(k, 0, static_cast<int64_t>(all.size())));
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(m), all.end(), better);
  all.resize(m);
  return all;
}

}  // namespace hnclip

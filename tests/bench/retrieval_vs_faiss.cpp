// retrieval_vs_faiss: the evaluator's retrieval (hnclip::rank_retrieval: chunked scores, top-50
// candidate ids and the exact rank of every query's ground truth) against faiss IndexFlatIP's
// exhaustive top-50 search (Debian's libfaiss-dev, linked by this benchmark only), on the same
// random unit vectors with a planted ground truth and the same thread count.
//
// Data: C candidates, d = 512, N(0, 1) normalised; query i is candidate i plus Gaussian noise of
// norm about `--noise` times its own, normalised (cosine ≈ 1 / sqrt(1 + noise²) with its ground
// truth — 0.22 at the default 4.5, so Recall@1 is neither 0 nor 100). Each side runs in a child
// process of its own (this program re-executed with --child), which builds the same data from the
// same seed, so the peaks of resident memory (VmHWM) do not mix; the peak is reset after the data
// are built, and their resident bytes just before the search are the baseline.
//
// Both sides must agree on Recall@1/5/10/50 (faiss's from the rank of the ground truth in its top
// 50) to 0.01 points, or the program fails: a fast search that finds something else is not a
// result. faiss returns only the top 50; ours also returns every query's exact rank (R@K for any
// K and the median rank), which is work faiss does not do — the ratio includes it.
//
// Usage: retrieval_vs_faiss [--queries N] [--candidates N] [--dim D] [--threads T] [--reps R]
//          [--noise X] [--json OUT]

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <faiss/IndexFlat.h>
#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include "bench/bench_support.h"
#include "eval/retrieval_metrics.h"
#include "train/compute_setup.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr int kTopK = 50;
const std::vector<int> kRecallAt = {1, 5, 10, 50};

struct Options {
  int64_t queries = 100000, candidates = 100000, dim = 512;
  int threads = 2, reps = 3;
  double noise = 4.5;
  std::string json_out;
};

int64_t status_bytes(const std::string& field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field + ":", 0) == 0) return std::stoll(line.substr(field.size() + 1)) * 1024;
  }
  return -1;
}

// The same vectors in every process: candidates, then queries planted on candidate i.
std::pair<torch::Tensor, torch::Tensor> make_data(const Options& o) {
  auto gen = at::detail::createCPUGenerator(20261202);
  namespace F = torch::nn::functional;
  const auto norm = F::NormalizeFuncOptions().dim(-1);
  auto cand = F::normalize(at::randn({o.candidates, o.dim}, gen), norm);
  auto noise = at::randn({o.queries, o.dim}, gen) * (o.noise / std::sqrt(static_cast<double>(o.dim)));
  auto q = F::normalize(cand.slice(0, 0, o.queries) + noise, norm);
  return {q.contiguous(), cand.contiguous()};
}

json child(const Options& o, const std::string& side) {
  auto [queries, candidates] = make_data(o);
  // Reset the peak to what is resident now (Linux: clear_refs 5), so that the generation's
  // temporaries do not count; the search's peak is then measured from the data's own bytes.
  std::ofstream("/proc/self/clear_refs") << "5";
  const int64_t baseline = status_bytes("VmRSS");
  std::vector<double> seconds;
  std::vector<double> recall;
  for (int r = 0; r < o.reps; ++r) {
    const auto t0 = Clock::now();
    std::vector<double> rec;
    if (side == "ours") {
      std::vector<std::vector<int64_t>> positives(o.queries);
      for (int64_t i = 0; i < o.queries; ++i) positives[i] = {i};
      hnclip::RetrievalOptions ro;
      ro.ks = kRecallAt;
      ro.topk = kTopK;
      const auto res = hnclip::rank_retrieval(queries, candidates, positives, "t2i", ro);
      for (int k : kRecallAt) rec.push_back(res.recall_at(k));
    } else {
      faiss::IndexFlatIP index(o.dim);
      index.add(o.candidates, candidates.data_ptr<float>());
      std::vector<float> d(static_cast<size_t>(o.queries) * kTopK);
      std::vector<faiss::Index::idx_t> ids(d.size());
      index.search(o.queries, queries.data_ptr<float>(), kTopK, d.data(), ids.data());
      std::vector<int64_t> hits(kRecallAt.size(), 0);
      for (int64_t i = 0; i < o.queries; ++i) {
        const auto* row = ids.data() + i * kTopK;
        const auto at = std::find(row, row + kTopK, i) - row;  // 0-based rank, kTopK = not found
        for (size_t j = 0; j < kRecallAt.size(); ++j) hits[j] += at < kRecallAt[j] ? 1 : 0;
      }
      for (auto h : hits) rec.push_back(100.0 * static_cast<double>(h) / o.queries);
    }
    seconds.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    recall = rec;
  }
  return {{"seconds", seconds},
          {"recall", recall},
          {"baseline_bytes", baseline},
          {"peak_bytes", status_bytes("VmHWM")}};
}

std::string run_child(const std::string& self, const std::string& side, int argc, char** argv) {
  std::string cmd = hnclip::bench::shell_quote(self) + " --child " + side;
  for (int i = 1; i < argc; ++i) cmd += " " + hnclip::bench::shell_quote(argv[i]);
  return hnclip::bench::command_output(cmd);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options o;
    std::string side;
    std::vector<char*> passed{argv[0]};  // the options children get again
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
        return argv[++i];
      };
      if (a == "--child") { side = value(); continue; }
      if (a == "--json") { o.json_out = value(); continue; }
      passed.push_back(argv[i]);
      if (a == "--queries") o.queries = std::stoll(value());
      else if (a == "--candidates") o.candidates = std::stoll(value());
      else if (a == "--dim") o.dim = std::stoll(value());
      else if (a == "--threads") o.threads = std::stoi(value());
      else if (a == "--reps") o.reps = std::stoi(value());
      else if (a == "--noise") o.noise = std::stod(value());
      else throw std::invalid_argument("unknown option " + a);
      passed.push_back(argv[i]);
    }
    if (o.queries > o.candidates) throw std::invalid_argument("--queries must be <= --candidates");
    if (!side.empty()) {
      if (side == "ours") {
        hnclip::configure_threads(o.threads);
      } else {
        // faiss parallelises over queries with OpenMP and multiplies through BLAS.
        omp_set_num_threads(o.threads);
        at::set_num_threads(1);
      }
      std::cout << child(o, side).dump() << "\n";
      return 0;
    }
    const std::string self = fs::read_symlink("/proc/self/exe").string();
    const int n = static_cast<int>(passed.size());
    json report = {{"queries", o.queries}, {"candidates", o.candidates}, {"dim", o.dim},
                   {"threads", o.threads}, {"reps", o.reps}, {"topk", kTopK}};
    for (const std::string s : {"ours", "faiss"}) {
      const auto out = run_child(self, s, n, passed.data());
      report[s] = json::parse(out.substr(out.rfind('{')));
      auto& r = report[s];
      r["median_s"] = hnclip::bench::median(r["seconds"].get<std::vector<double>>());
      r["min_s"] = *std::min_element(r["seconds"].begin(), r["seconds"].end());
      r["max_s"] = *std::max_element(r["seconds"].begin(), r["seconds"].end());
      std::cerr << s << ": " << r.dump() << "\n";
    }
    const auto ro = report["ours"]["recall"].get<std::vector<double>>();
    const auto rf = report["faiss"]["recall"].get<std::vector<double>>();
    double worst = 0;
    for (size_t i = 0; i < ro.size(); ++i) worst = std::max(worst, std::abs(ro[i] - rf[i]));
    report["recall_at"] = kRecallAt;
    report["recall_max_abs_diff"] = worst;
    report["time_ratio"] =
        report["ours"]["median_s"].get<double>() / report["faiss"]["median_s"].get<double>();
    for (const std::string s : {"ours", "faiss"}) {
      report[s]["search_peak_bytes"] = report[s]["peak_bytes"].get<int64_t>() -
                                       report[s]["baseline_bytes"].get<int64_t>();
    }
    std::printf("retrieval %lld x %lld, d = %lld, top-%d, %d threads: ours %.2f s, faiss %.2f s, "
                "ratio %.3f; peak above the data: ours %.0f MB, faiss %.0f MB; recall diff %.4f\n",
                static_cast<long long>(o.queries), static_cast<long long>(o.candidates),
                static_cast<long long>(o.dim), kTopK, o.threads,
                report["ours"]["median_s"].get<double>(), report["faiss"]["median_s"].get<double>(),
                report["time_ratio"].get<double>(),
                report["ours"]["search_peak_bytes"].get<int64_t>() / 1e6,
                report["faiss"]["search_peak_bytes"].get<int64_t>() / 1e6, worst);
    if (!o.json_out.empty()) std::ofstream(o.json_out) << report.dump(2) << "\n";
    if (worst > 0.01) {
      std::cerr << "retrieval_vs_faiss: the recalls differ by " << worst << " points\n";
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "retrieval_vs_faiss: " << e.what() << "\n";
    return 2;
  }
}

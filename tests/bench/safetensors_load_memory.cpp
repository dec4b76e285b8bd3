// safetensors_load_memory: what loading a ViT-L/14-sized fp32 state dict (clip_preset("ViT-L/14",
// 49408, 77), ~428M parameters, ~1.7 GB) into a ClipModel costs in peak memory and time, from a
// safetensors file (mapped; each tensor's pages released right after it is copied) against the same
// weights in a torch.save .pt (read into memory first), and against the safetensors file loaded
// through the const& overload that keeps every view until the end (what the releasing overload
// saves). Each load runs in a fresh child process (this program re-executed with --child), so the
// peaks (VmHWM of /proc/self/status) do not mix.
//
// Usage: safetensors_load_memory WORK_DIR [--warm-only]
// Writes WORK_DIR/vit_l14.safetensors and WORK_DIR/vit_l14.pt (3.4 GB together; removed at the
// end), then loads each file cold (its pages evicted from the page cache with fdatasync +
// posix_fadvise(DONTNEED) first; the residency measured with mincore is printed) and warm (read
// once just before). The child's loaded weights are checked against the written ones (sum of all
// parameters in float64), so a fast but wrong load cannot pass for a result.
//
// Peak RSS includes the process's baseline (LibTorch loaded, before the model exists), printed
// separately; "ratio" is the peak over the model's own parameter bytes.

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include "model/clip_config.h"
#include "model/clip_state_dict.h"
#include "model/make_clip_model.h"
#include "model/model_state_dict.h"
#include "model/safetensors_file.h"
#include "model/state_dict_file.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr int64_t kVocab = 49408;     // OpenAI CLIP's BPE vocabulary
constexpr int64_t kContext = 77;      // OpenAI CLIP's context length
constexpr uint64_t kWrittenSeed = 1;  // the weights in the files
constexpr uint64_t kShellSeed = 2;  // the model they are loaded over (different, so loading shows)
constexpr double kGB = 1e9;

hnclip::ClipConfig vit_l14() { return hnclip::clip_preset("ViT-L/14", kVocab, kContext); }

// A field of /proc/self/status in bytes (VmHWM, VmRSS, RssFile, ...).
int64_t status_bytes(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::stoll(line.substr(field.size() + 1)) * 1024;
  }
  return -1;
}

double parameter_sum(hnclip::ClipModel& m) {
  double s = 0;
  for (const auto& p : m->parameters()) s += p.to(torch::kDouble).sum().item<double>();
  return s;
}

int64_t parameter_bytes(hnclip::ClipModel& m) {
  int64_t b = 0;
  for (const auto& p : m->parameters()) b += p.numel() * p.element_size();
  return b;
}

// Fraction of the file's pages in the page cache.
double resident_fraction(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  struct stat st {};
  ::fstat(fd, &st);
  const size_t size = static_cast<size_t>(st.st_size),
               page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  void* base = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  std::vector<unsigned char> vec((size + page - 1) / page);
  ::mincore(base, size, vec.data());
  size_t in = 0;
  for (auto v : vec) in += v & 1;
  ::munmap(base, size);
  ::close(fd);
  return vec.empty() ? 0.0 : static_cast<double>(in) / static_cast<double>(vec.size());
}

void evict(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

void warm(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> buf(1 << 24);
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
  }
}

// One load in this (fresh) process; prints one JSON line.
int child(const std::string& mode, const std::string& path, bool cold) {
  const int64_t baseline = status_bytes("VmRSS");
  auto model = hnclip::make_clip_model(vit_l14(), kShellSeed);
  const int64_t with_model = status_bytes("VmRSS");
  if (cold)
    evict(path);
  else
    warm(path);
  const double resident = resident_fraction(path);
  const auto t0 = Clock::now();
  if (mode == "safetensors") {
    hnclip::load_clip_state_dict(model, hnclip::read_safetensors_file(path), path);
  } else if (mode == "safetensors-keep") {
    const auto sd = hnclip::read_safetensors_file(path);
    hnclip::load_clip_state_dict(model, sd, path);
  } else {
    hnclip::load_clip_state_dict(model, hnclip::read_state_dict_file(path), path);
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  std::cout << json{{"mode", mode},
                    {"cold", cold},
                    {"resident_before", resident},
                    {"seconds", seconds},
                    {"peak_rss", status_bytes("VmHWM")},
                    {"baseline_rss", baseline},
                    {"rss_with_model", with_model},
                    {"weights", parameter_bytes(model)},
                    {"sum", parameter_sum(model)}}
                   .dump()
            << std::endl;
  return 0;
}

json run_child(const std::string& self, const std::string& mode, const std::string& path,
               bool cold) {
  const std::string cmd = self + " --child " + mode + " " + path + (cold ? " cold" : " warm");
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof(buf), p)) out.append(buf, n);
  if (::pclose(p) != 0) throw std::runtime_error(cmd + " failed: " + out);
  return json::parse(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[1]) == "--child")
    return child(argv[2], argv[3], std::string(argv[4]) == "cold");
  if (argc < 2) {
    std::cerr << "usage: safetensors_load_memory WORK_DIR [--warm-only]\n";
    return 2;
  }
  const bool warm_only = argc > 2 && std::string(argv[2]) == "--warm-only";
  const fs::path dir = argv[1];
  fs::create_directories(dir);
  const std::string st = (dir / "vit_l14.safetensors").string(), pt = (dir / "vit_l14.pt").string();
  const std::string self = fs::read_symlink("/proc/self/exe").string();

  double want_sum = 0;
  {
    const auto t0 = Clock::now();
    auto model = hnclip::make_clip_model(vit_l14(), kWrittenSeed);
    want_sum = parameter_sum(model);
    const auto sd = hnclip::model_state_dict(model);
    hnclip::write_safetensors_file(st, sd, {{"format", "pt"}});
    hnclip::write_state_dict_file(pt, sd);
    std::printf("wrote %s (%.2f GB) and %s (%.2f GB) in %.1f s\n", st.c_str(),
                fs::file_size(st) / kGB, pt.c_str(), fs::file_size(pt) / kGB,
                std::chrono::duration<double>(Clock::now() - t0).count());
  }
  bool ok = true;
  for (const bool cold : warm_only ? std::vector<bool>{false} : std::vector<bool>{true, false}) {
    for (const std::string mode : {"safetensors", "safetensors-keep", "pt"}) {
      const auto r = run_child(self, mode, mode == "pt" ? pt : st, cold);
      const double weights = r["weights"].get<double>(), peak = r["peak_rss"].get<double>();
      const bool right =
          std::abs(r["sum"].get<double>() - want_sum) <= 1e-9 * std::max(1.0, std::abs(want_sum));
      ok = ok && right;
      std::printf(
          "%-17s %s (%3.0f%% in page cache): %5.2f s, peak RSS %.2f GB (weights %.2f GB, ratio "
          "%.2f; "
          "baseline %.2f GB, model built %.2f GB)%s\n",
          mode.c_str(), cold ? "cold" : "warm", 100 * r["resident_before"].get<double>(),
          r["seconds"].get<double>(), peak / kGB, weights / kGB, peak / weights,
          r["baseline_rss"].get<double>() / kGB, r["rss_with_model"].get<double>() / kGB,
          right ? "" : "  WRONG WEIGHTS");
      std::fflush(stdout);
    }
  }
  fs::remove(st);
  fs::remove(pt);
  return ok ? 0 : 1;
}

#include "cli_support.h"

#include <csignal>
#include <filesystem>
#include <iostream>

#include "job/workbench_paths.h"

namespace hnclip::cli {

JobPaths CommonOptions::paths() const {
  JobPaths p{database, cache_dir.empty() ? default_cache_dir() : cache_dir};
  if (p.database.empty()) {
    // The default location is ours to create; a --db in a missing folder is the user's mistake.
    p.database = default_database_path();
    std::filesystem::create_directories(std::filesystem::path(p.database).parent_path());
  }
  return p;
}

JobPaths CommonOptions::stored_paths() const {
  std::error_code ec;
  if (!database.empty() && !std::filesystem::exists(database, ec)) {
    throw UsageError("--db " + database + ": no database there (train and sweep create one)");
  }
  return paths();
}

std::atomic<bool>& stop_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}

namespace {
extern "C" void on_stop_signal(int sig) {
  stop_flag().store(true);
  std::signal(sig, SIG_DFL);  // a second Ctrl-C ends the process at once
}
}  // namespace

void install_stop_handlers() {
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
}

nlohmann::json recall_json(const RetrievalResult& r) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : r.recall) j["R@" + std::to_string(k)] = v;
  return j;
}

void print_error(const std::string& message) {
  std::string line = message;
  for (auto& c : line)
    if (c == '\n') c = ' ';
  std::cerr << "hnclip: " << line << std::endl;
}

}  // namespace hnclip::cli

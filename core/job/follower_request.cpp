#include "job/follower_request.h"

namespace hnclip {

namespace {
// Resolved by rank 0 from its device once the run has been checked: a follower's is empty.
constexpr const char* kRankZerosOwnKey = "dist_backend";

std::string rank_text(int rank) { return "rank " + std::to_string(rank); }
}  // namespace

std::string follower_request_key(int rank) { return "hnclip/follower/" + std::to_string(rank); }

std::string follower_request_text(const FollowerRequest& request) {
  nlohmann::json j{{"configured", request.configured}, {"resume", request.resume}};
  if (request.configured) j["config"] = request.config;
  return j.dump();
}

FollowerRequest parse_follower_request(int rank, const std::string& text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  FollowerRequest request;
  try {
    if (j.is_discarded() || !j.is_object()) throw ConfigError("not a JSON object");
    request.configured = j.at("configured").get<bool>();
    request.resume = j.at("resume").get<int64_t>();
    if (request.configured) from_json(j.at("config"), request.config);
  } catch (const std::exception& e) {
    throw ConfigError(rank_text(rank) + " published a request rank 0 cannot read (" + e.what() +
                      "): " + text.substr(0, 80));
  }
  return request;
}

std::string follower_disagreement(int rank, const FollowerRequest& request,
                                  const TrainConfig* new_run, int64_t resumed_run) {
  const std::string who = rank_text(rank);
  const std::string advice =
      ". Every rank trains rank 0's run: give every rank the same flags, "
      "or a rank above 0 no run flags at all";
  if (!new_run) {
    if (request.resume != 0 && request.resume != resumed_run)
      return who + " was given --resume " + std::to_string(request.resume) + ", rank 0 --resume " +
             std::to_string(resumed_run) + advice;
    if (request.configured)
      return who + " was given run flags, but rank 0 resumes run " + std::to_string(resumed_run) +
             ", which keeps its stored configuration (only --resume and where the processes "
             "meet may be given with it)";
    return "";
  }
  if (request.resume != 0)
    return who + " was given --resume " + std::to_string(request.resume) +
           ", but rank 0 starts a new run" + advice;
  if (!request.configured) return "";
  nlohmann::json mine = request.config, theirs = *new_run;
  mine.erase(kRankZerosOwnKey);
  theirs.erase(kRankZerosOwnKey);
  std::string differences;
  for (const auto& [key, value] : theirs.items()) {
    const auto at = mine.find(key);
    const std::string given = at == mine.end() ? "(none)" : at->dump();
    if (at != mine.end() && *at == value) continue;
    differences +=
        (differences.empty() ? "" : ", ") + key + " " + given + " (rank 0: " + value.dump() + ")";
  }
  if (differences.empty()) return "";
  return who + " was given another run configuration than rank 0: " + differences + advice;
}

}  // namespace hnclip

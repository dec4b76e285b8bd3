// The stored names of RunStatus (declared in run_store.h). These strings are the database's
// vocabulary: renaming one would orphan existing rows.

#include "store/run_store.h"

namespace hnclip {

namespace {
struct StatusName {
  RunStatus status;
  const char* name;
};
constexpr StatusName kStatusNames[] = {
    {RunStatus::Queued, "queued"},     {RunStatus::Running, "running"},
    {RunStatus::Finished, "finished"}, {RunStatus::Failed, "failed"},
    {RunStatus::Stopped, "stopped"},   {RunStatus::Interrupted, "interrupted"},
};
}  // namespace

std::string to_string(RunStatus s) {
  for (const auto& entry : kStatusNames) {
    if (entry.status == s) return entry.name;
  }
  throw StoreError("run status " + std::to_string(static_cast<int>(s)) + " has no name");
}

RunStatus run_status_from_string(const std::string& s) {
  for (const auto& entry : kStatusNames) {
    if (s == entry.name) return entry.status;
  }
  throw StoreError("unknown run status \"" + s +
                   "\" (expected queued, running, finished, failed, stopped or interrupted)");
}

}  // namespace hnclip

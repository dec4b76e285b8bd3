#include "fault/fault_point.h"

#include <signal.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace hnclip {

namespace {
constexpr const char* kVariable = "HNCLIP_FAULT_POINT";
constexpr int64_t kMaxCount = 1'000'000'000;

[[noreturn]] void bad_spec(const std::string& spec, const std::string& why) {
  throw std::invalid_argument(std::string(kVariable) + "=" + spec + ": " + why +
                              " (expected NAME:N, N >= 1)");
}
}  // namespace

FaultPlan::FaultPlan(const char* spec) {
  if (spec == nullptr || *spec == '\0') return;
  const std::string s(spec);
  const auto colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0) bad_spec(s, "no NAME:");
  const std::string digits = s.substr(colon + 1);
  if (digits.empty() || digits.size() > 10 ||
      digits.find_first_not_of("0123456789") != std::string::npos) {
    bad_spec(s, "N is not a whole number");
  }
  const int64_t n = std::stoll(digits);
  if (n < 1 || n > kMaxCount) bad_spec(s, "N out of range");
  name_ = s.substr(0, colon);
  target_ = n;
}

bool FaultPlan::reached(const char* name) {
  if (name_.empty() || std::strcmp(name, name_.c_str()) != 0) return false;
  return hits_.fetch_add(1) + 1 == target_;
}

void fault_point(const char* name) {
  // Read once: the variable is the test's plan for the whole process.
  static FaultPlan plan(std::getenv(kVariable));
  if (!plan.armed()) return;
  if (plan.reached(name)) ::raise(SIGKILL);
}

}  // namespace hnclip

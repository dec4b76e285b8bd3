#include "store/host_process.h"

#include <limits.h>
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <limits>

namespace hnclip {

std::string current_host_name() {
#ifdef HOST_NAME_MAX
  char name[HOST_NAME_MAX + 1] = {};
#else
  char name[256] = {};
#endif
  if (::gethostname(name, sizeof(name) - 1) != 0) return {};
  return name;
}

bool process_exists(int64_t pid) {
  // pid <= 0 would address process groups, and a value outside pid_t would be truncated into
  // some unrelated process: neither names a process.
  if (pid <= 0 || pid > std::numeric_limits<pid_t>::max()) return false;
  if (::kill(static_cast<pid_t>(pid), 0) == 0) return true;
  return errno != ESRCH;
}

}  // namespace hnclip

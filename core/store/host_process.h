#pragma once
// Who runs a run: the host name and process checks RunStore uses to find runs whose process died.
// Programs should record current_host_name() with set_started so the check matches.

#include <cstdint>
#include <string>

namespace hnclip {

// gethostname(); "" if it fails.
std::string current_host_name();

// False only when the process certainly does not exist on this host (kill(pid, 0) fails with
// ESRCH, or pid cannot be a pid at all); a process we may not signal (EPERM) exists.
bool process_exists(int64_t pid);

}  // namespace hnclip

#pragma once
// One CSV field as RFC 4180 writes it: quoted when it holds a comma, quote or line break, with
// inner quotes doubled. Shared by every CSV the core writes (metrics export, experiment tables).

#include <string>

namespace hnclip {

std::string csv_field(const std::string& s);

}  // namespace hnclip

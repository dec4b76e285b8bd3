#pragma once
// The RunStore schema as an ordered list of forward migrations. Step N turns a version N-1
// database into version N; PRAGMA user_version holds the version a file is at. Never edit a
// released step: add a new one at the end (old files replay only the steps they lack).

#include <vector>

namespace hnclip {

struct MigrationStep {
  int version;              // user_version after this step
  const char* description;  // for error messages
  const char* sql;          // one or more statements, run in one transaction
};

// Ordered by version, starting at 1, without gaps.
const std::vector<MigrationStep>& schema_migrations();

}  // namespace hnclip

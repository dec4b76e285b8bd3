#pragma once
// Fixture for the include-rule check's own test: a train/ file that includes the runs/ tab.
#include "widgets/common/fine.h"
#include "widgets/runs/runs_only.h"

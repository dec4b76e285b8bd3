#pragma once
// Fixture for the include-rule check's own test: allowed (its own folder and common/).
#include "widgets/common/fine.h"
#include "widgets/runs/runs_only.h"

#pragma once
// experiment/experiment_spec.h for files that also include Qt: the core names a member of
// ExperimentPlan `slots`, which Qt's keyword macro `slots` (defined empty by <QObject>) would
// erase. Included through here — before any other path to it, which #pragma once then skips —
// the header is read with the macro lifted, and Qt's definition is put back after it.

#pragma push_macro("slots")
#undef slots
#include "experiment/experiment_spec.h"
#pragma pop_macro("slots")

#pragma once
// The name a run goes by in the window. A run needs no name (the CLI's `train` and the Train tab
// start unnamed runs by default), so every table, sentence, legend and export that names a run
// takes it from here: a blank would leave "fixes 31 that  misses" in the Retrieval tab's summary
// and a nameless row in an exported recall table.

#include <cstdint>
#include <string>

#include <QString>

namespace hnclip::gui {

// The run's name, or "run N" (its id) when it has none.
QString run_label(int64_t run_id, const std::string& name);

// For a list to pick a run from, where two runs may share a name: "name (#N)", or "run N" when
// the run has no name (the id is already in it).
QString run_choice_label(int64_t run_id, const std::string& name);

}  // namespace hnclip::gui

#pragma once
// The core's plain event structs, registered with Qt's meta-type system so queued signals can
// carry them from the training thread to the GUI thread (they are copied on the way).

#include <QMetaType>

#include "train/train_config.h"
#include "train/train_events.h"
#include "train/train_result.h"

Q_DECLARE_METATYPE(hnclip::StepEvent)
Q_DECLARE_METATYPE(hnclip::ProbeEvent)
Q_DECLARE_METATYPE(hnclip::GbarSnapshotEvent)
Q_DECLARE_METATYPE(hnclip::EvalEvent)
Q_DECLARE_METATYPE(hnclip::CheckpointEvent)
Q_DECLARE_METATYPE(hnclip::StatusEvent)
Q_DECLARE_METATYPE(hnclip::TrainConfig)
Q_DECLARE_METATYPE(hnclip::TrainResult)

namespace hnclip::gui {
// Registers the types above for queued connections; idempotent, call before connecting.
void register_train_event_types();
}  // namespace hnclip::gui

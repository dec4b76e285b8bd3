#include "widgets/train/train_event_types.h"

namespace hnclip::gui {

void register_train_event_types() {
  qRegisterMetaType<hnclip::StepEvent>();
  qRegisterMetaType<hnclip::ProbeEvent>();
  qRegisterMetaType<hnclip::GbarSnapshotEvent>();
  qRegisterMetaType<hnclip::EvalEvent>();
  qRegisterMetaType<hnclip::CheckpointEvent>();
  qRegisterMetaType<hnclip::StatusEvent>();
  qRegisterMetaType<hnclip::TrainConfig>();
  qRegisterMetaType<hnclip::TrainResult>();
}

}  // namespace hnclip::gui

#pragma once
// Tells ThreadSanitizer about a hand-off that goes through Qt: an object one thread fills and
// gives to Qt (a QThreadPool task), which another thread then reads. Qt orders the two with its
// QMutex, a futex plus atomics inside libQt6Core; Debian's Qt is not built with
// -fsanitize=thread, so TSan sees no order and reports the reads as races. The sending thread
// calls handoff_release(object) after its last write, the receiving one handoff_acquire(object)
// before its first read: exactly the order Qt guarantees, for that object only. No-ops in every
// build but the tsan preset. (A queued signal's arguments need nothing: Qt copies them inside
// QMetaType, which tests/sanitizers/tsan.supp names.)

#if defined(__SANITIZE_THREAD__)
#define HNCLIP_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HNCLIP_TSAN 1
#endif
#endif

#ifdef HNCLIP_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace hnclip::gui {

inline void handoff_release([[maybe_unused]] const void* object) {
#ifdef HNCLIP_TSAN
  __tsan_release(const_cast<void*>(object));
#endif
}

inline void handoff_acquire([[maybe_unused]] const void* object) {
#ifdef HNCLIP_TSAN
  __tsan_acquire(const_cast<void*>(object));
#endif
}

}  // namespace hnclip::gui

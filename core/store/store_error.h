#pragma once
// StoreError: any failure of the store (RunStore, its statements, blobs and migrations). Its own
// header so code that only throws or catches it need not see RunStore and its row types.

#include <stdexcept>

namespace hnclip {

// Any failure of the store; the message names the database file and what failed.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace hnclip

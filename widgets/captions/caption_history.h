#pragma once
// CaptionHistory: the Captions tab's back / forward list of shown captions, as a browser keeps
// one — visiting a caption drops whatever lay ahead. Plain C++; GUI thread in practice.

#include <cstdint>
#include <vector>

namespace hnclip::gui {

class CaptionHistory {
 public:
  void visit(int64_t caption) {
    items_.resize(static_cast<size_t>(pos_ + 1));
    items_.push_back(caption);
    pos_ = static_cast<int>(items_.size()) - 1;
  }
  bool canGoBack() const { return pos_ > 0; }
  bool canGoForward() const { return pos_ + 1 < static_cast<int>(items_.size()); }
  int64_t back() { return items_[static_cast<size_t>(--pos_)]; }     // needs canGoBack()
  int64_t forward() { return items_[static_cast<size_t>(++pos_)]; }  // needs canGoForward()
  void clear() {
    items_.clear();
    pos_ = -1;
  }

 private:
  std::vector<int64_t> items_;
  int pos_ = -1;
};

}  // namespace hnclip::gui

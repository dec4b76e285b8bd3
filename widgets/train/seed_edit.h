#pragma once
// SeedEdit: a seed field taking any unsigned 64-bit value, as TrainConfig's seeds are. A QSpinBox
// holds an int: "Same as run…" on a run started with --seed 3000000000 showed and trained seed 0
// (the value wrapped, then clamped) without saying so. Digits only; a value past 2^64 − 1 or
// an empty field reads as no seed, which the form reports in place. GUI thread only.

#include <cstdint>
#include <optional>

#include <QLineEdit>

namespace hnclip::gui {

class SeedEdit : public QLineEdit {
  Q_OBJECT

 public:
  explicit SeedEdit(QWidget* parent = nullptr);

  void setSeed(uint64_t seed);
  // Empty, or past the largest 64-bit value: none.
  std::optional<uint64_t> seed() const;
};

}  // namespace hnclip::gui

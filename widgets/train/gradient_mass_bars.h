#pragma once
// GradientMassBars: the stacked bars of one "Where the gradient goes" chart — per run and epoch a
// bar whose five layers are the Ḡ hardness buckets' shares of the negatives' softmax mass (mean
// over the epoch's probes; see TrainingCurves::kGradientMassPlain). Several runs stand side by
// side within an epoch, left to right in ascending run id, outlined in their run colour; the
// layers are coloured by bucket (widgets/common/hardness_buckets.h) in every run.
//
// Owned by the TrainingChart whose plot it draws into; rebuilt whole on every mirror (runs ×
// buckets × epochs points: small). Threading: GUI thread only.

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include <QList>
#include <QString>

#include "widgets/train/training_curves.h"

class QCPBars;
class QCustomPlot;

namespace hnclip::gui {

class GradientMassBars {
 public:
  using LabelFn = std::function<QString(int64_t run_id)>;
  GradientMassBars(QCustomPlot* plot, LabelFn label);

  // Brings the bars up to one chart's series of the model (one series per bucket).
  void mirror(const std::map<int64_t, std::vector<CurveSeries>>& model);
  // Re-applies names and outlines (labels or palette changed).
  void restyle();
  QCPBars* bars(int64_t run_id, int bucket) const;  // nullptr when absent
  std::vector<int64_t> runs() const;
  // Where run `index` of the current runs draws the bar of `epoch`.
  double barKey(int index, double epoch) const;
  // The bar under plot key `key` as rich text (run, epoch, every bucket's share); "" for none.
  QString tooltip(double key) const;

 private:
  struct RunBars {
    std::vector<QCPBars*> layers;                 // one per bucket, each stacked on the one before
    std::vector<std::vector<CurvePoint>> shares;  // per bucket: (epoch, share) as in the model
  };
  double barWidth() const;
  void styleRun(int64_t run_id, RunBars& r);

  QCustomPlot* plot_;
  LabelFn label_;
  std::map<int64_t, RunBars> runs_;
};

}  // namespace hnclip::gui

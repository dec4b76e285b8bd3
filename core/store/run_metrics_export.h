#pragma once
// Export of one run's recorded metrics as a long table (`hnclip export --run ID --metrics FILE`),
// one row per (record, metric), so a run loads into pandas with one read_csv / read_json call.
//
// Columns: kind, run_id, epoch, step, wall_time_s, metric, value.
//   kind "step":  every optimiser step; metrics loss, loss_standard, lr, logit_scale, grad_norm,
//                 and loss_term_<name> per recorded loss term (train/loss_term.h; unweighted).
//   kind "probe": every gradient probe; loss_standard, loss_boosted, grad_norm_standard,
//                 grad_norm_boosted, grad_ratio, grad_cosine, and where recorded the gradient-mass
//                 shares mass_share_plain_<b> / mass_share_boosted_<b> (b = the Ḡ bucket's index,
//                 in the order `hnclip probes --json` names them).
//   kind "eval":  every epoch's evaluation (epoch 0 = the start); metric <split>_<direction>_r<k>
//                 (e.g. test_t2i_r1), value = recall in percent.
//   kind "transfer": every transfer evaluation (`hnclip eval --split/--benchmark`, `experiment
//                 eval`): the checkpoint of `epoch` on other data; metric
//                 <data key>#<split>_<direction>_r<k> (e.g.
//                 synthetic:size=small:seed=1#shifted_t2i_r1; the data key as
//                 job/run_benchmark_spec.h's benchmark_data_key), step = that checkpoint's step
//                 (-1 when none is on record).
// wall_time_s: seconds of training since the run started, pauses excluded (the step rows' clock,
// not Unix time). A probe or evaluation gets the wall time of the step row with its step (an
// evaluation at step 0 gets 0); none stored -> NaN. Rows come in the order step, probe, eval,
// transfer, each ordered as the store orders them (by step; evaluations by epoch, direction, k;
// transfer evaluations by data, split, epoch, direction, k).
// Thread: a RunStore connection is used by one thread; these functions read through the caller's.

#include <cstdint>
#include <string>
#include <vector>

#include "store/run_store.h"

namespace hnclip {

struct MetricsExportRow {
  std::string kind;  // "step" | "probe" | "eval" | "transfer"
  int64_t run_id = 0;
  int epoch = 0;
  int64_t step = 0;
  double wall_time_s = 0;
  std::string metric;
  double value = 0;  // NaN and ±inf as stored
};

enum class MetricsFileFormat { Csv, JsonLines };

// .csv or .jsonl (case as written); anything else throws std::invalid_argument naming the path
// and its extension.
MetricsFileFormat metrics_file_format(const std::string& path);

// Every row above; throws StoreError naming the run and the database if there is no such run.
std::vector<MetricsExportRow> run_metrics_rows(const RunStore& store, int64_t run);

// CSV: a header line, then one line per row (RFC 4180 quoting where a field needs it); NaN is an
// empty field, ±inf "inf" / "-inf", other numbers the shortest text that reads back exactly.
// JSON lines: one object per row with the same keys; NaN is null, ±inf the strings "inf" / "-inf".
std::string format_metrics(const std::vector<MetricsExportRow>& rows, MetricsFileFormat format);

// Writes format_metrics(run_metrics_rows(...)) to `path` (format by its extension) through a
// temporary file in the same folder renamed into place, so a failure leaves no partial file and
// an existing file untouched. Returns the number of rows. Throws std::invalid_argument for the
// extension, StoreError for an unknown run, std::runtime_error naming the path if it cannot be
// written.
size_t write_run_metrics(const RunStore& store, int64_t run, const std::string& path);

}  // namespace hnclip

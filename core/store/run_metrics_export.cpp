#include "store/run_metrics_export.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "store/csv_field.h"
#include "text/shortest_decimal.h"

namespace hnclip {

namespace {

constexpr const char* kKindStep = "step";
constexpr const char* kKindProbe = "probe";
constexpr const char* kKindEval = "eval";
constexpr const char* kKindTransfer = "transfer";
constexpr int64_t kUnknownStep = -1;  // a transfer row whose epoch has no step on record
constexpr const char* kHeader = "kind,run_id,epoch,step,wall_time_s,metric,value";
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string extension_of(const std::string& path) {
  return std::filesystem::path(path).extension().string();
}

// Shortest decimal text that reads back to the same double; "" for NaN, "inf"/"-inf".
std::string number_text(double v) { return std::isnan(v) ? std::string() : shortest_decimal(v); }

nlohmann::json number_json(double v) {
  if (std::isnan(v)) return nullptr;
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

}  // namespace

MetricsFileFormat metrics_file_format(const std::string& path) {
  const std::string ext = extension_of(path);
  if (ext == ".csv") return MetricsFileFormat::Csv;
  if (ext == ".jsonl") return MetricsFileFormat::JsonLines;
  throw std::invalid_argument(path + ": extension \"" + ext +
                              "\" is neither .csv nor .jsonl (the format follows the extension)");
}

std::vector<MetricsExportRow> run_metrics_rows(const RunStore& store, int64_t run) {
  if (!store.find_run(run)) {
    throw StoreError("run " + std::to_string(run) + ": no such run in " + store.path());
  }
  std::vector<MetricsExportRow> rows;
  std::map<int64_t, double> wall_of_step{{0, 0.0}};  // step 0 is the run's start
  auto add = [&](const char* kind, int epoch, int64_t step, double wall, const std::string& metric,
                 double value) {
    rows.push_back(MetricsExportRow{kind, run, epoch, step, wall, metric, value});
  };
  auto wall_at = [&](int64_t step) {
    const auto it = wall_of_step.find(step);
    return it == wall_of_step.end() ? kNaN : it->second;
  };
  for (const auto& s : store.step_metrics(run)) {
    wall_of_step[s.step] = s.wall_time_s;
    add(kKindStep, s.epoch, s.step, s.wall_time_s, "loss", s.loss);
    add(kKindStep, s.epoch, s.step, s.wall_time_s, "loss_standard", s.loss_standard);
    add(kKindStep, s.epoch, s.step, s.wall_time_s, "lr", s.lr);
    add(kKindStep, s.epoch, s.step, s.wall_time_s, "logit_scale", s.logit_scale);
    add(kKindStep, s.epoch, s.step, s.wall_time_s, "grad_norm", s.grad_norm);
    for (const auto& t : s.loss_terms) {
      add(kKindStep, s.epoch, s.step, s.wall_time_s, "loss_term_" + t.name, t.value);
    }
  }
  for (const auto& p : store.probes(run)) {
    const double wall = wall_at(p.step);
    add(kKindProbe, p.epoch, p.step, wall, "loss_standard", p.loss_standard);
    add(kKindProbe, p.epoch, p.step, wall, "loss_boosted", p.loss_boosted);
    add(kKindProbe, p.epoch, p.step, wall, "grad_norm_standard", p.grad_norm_standard);
    add(kKindProbe, p.epoch, p.step, wall, "grad_norm_boosted", p.grad_norm_boosted);
    add(kKindProbe, p.epoch, p.step, wall, "grad_ratio", p.grad_ratio);
    add(kKindProbe, p.epoch, p.step, wall, "grad_cosine", p.grad_cosine);
    for (size_t b = 0; b < p.mass_share_plain.size(); ++b) {
      add(kKindProbe, p.epoch, p.step, wall, "mass_share_plain_" + std::to_string(b),
          p.mass_share_plain[b]);
    }
    for (size_t b = 0; b < p.mass_share_boosted.size(); ++b) {
      add(kKindProbe, p.epoch, p.step, wall, "mass_share_boosted_" + std::to_string(b),
          p.mass_share_boosted[b]);
    }
  }
  std::map<int, int64_t> step_of_epoch;  // a transfer row's checkpoint step, by its epoch
  for (const auto& e : store.epoch_evals(run)) {
    step_of_epoch[e.epoch] = e.step;
    add(kKindEval, e.epoch, e.step, wall_at(e.step),
        e.split + "_" + e.direction + "_r" + std::to_string(e.k), e.recall);
  }
  for (const auto& c : store.checkpoints(run)) step_of_epoch[c.epoch] = c.step;
  for (const auto& t : store.transfer_evals(run)) {
    const auto it = step_of_epoch.find(t.epoch);
    const int64_t step = it == step_of_epoch.end() ? kUnknownStep : it->second;
    add(kKindTransfer, t.epoch, step, step == kUnknownStep ? kNaN : wall_at(step),
        t.benchmark + "#" + t.split + "_" + t.direction + "_r" + std::to_string(t.k), t.recall);
  }
  return rows;
}

std::string format_metrics(const std::vector<MetricsExportRow>& rows, MetricsFileFormat format) {
  std::string out;
  if (format == MetricsFileFormat::Csv) {
    out += kHeader;
    out += '\n';
    for (const auto& r : rows) {
      out += csv_field(r.kind) + ',' + std::to_string(r.run_id) + ',' + std::to_string(r.epoch) +
             ',' + std::to_string(r.step) + ',' + number_text(r.wall_time_s) + ',' +
             csv_field(r.metric) + ',' + number_text(r.value) + '\n';
    }
    return out;
  }
  for (const auto& r : rows) {
    out += nlohmann::json{{"kind", r.kind},     {"run_id", r.run_id},
                          {"epoch", r.epoch},   {"step", r.step},
                          {"wall_time_s", number_json(r.wall_time_s)},
                          {"metric", r.metric}, {"value", number_json(r.value)}}
               .dump();
    out += '\n';
  }
  return out;
}

size_t write_run_metrics(const RunStore& store, int64_t run, const std::string& path) {
  const auto format = metrics_file_format(path);
  const auto rows = run_metrics_rows(store, run);
  const std::string text = format_metrics(rows, format);
  // Same folder, so the rename is atomic and never crosses a file system.
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(path + ": cannot write (cannot create " + tmp + ")");
    out << text;
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      throw std::runtime_error(path + ": cannot write (writing " + tmp + " failed)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot write (" + ec.message() + ")");
  }
  return rows.size();
}

}  // namespace hnclip

#include "experiment/experiment_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "experiment/experiment_spec.h"
#include "store/csv_field.h"
#include "text/terminal_column.h"

namespace hnclip {

namespace {

constexpr int kLabelWidth = 34;  // terminal table: the cell label column
constexpr int kValueWidth = 15;  // "88.32 ± 0.27 *" and its padding

std::string fixed(double v, int digits) {
  if (std::isnan(v)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// "+0.00", never "-0.00", for a value that rounds to nothing: a mean difference of recalls with
// equal hits can be a residue of -1e-14 (recall is 100·hits/N).
std::string signed_fixed(double v, int digits) {
  if (std::isnan(v)) return "";
  if (std::isinf(v)) return v > 0 ? "+inf" : "-inf";
  const double scale = std::pow(10.0, digits);
  if (std::round(v * scale) == 0.0) v = 0.0;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.*f", digits, v);
  return buf;
}

std::string p_text(double p) {
  if (std::isnan(p)) return "";
  if (p < 1e-4) return "<1e-4";
  return fixed(p, 4);
}

std::string mean_std(const SeedSummary& s) {
  if (s.n == 0) return "";
  return fixed(s.mean, 2) + (s.n >= 2 ? " ± " + fixed(s.std, 2) : "");
}

// A mean as the tables print it (two decimals). Ranks compare these, as the window's grid does:
// recall is 100·hits/N, so two cells with the same hits over their seeds can differ in the last
// bit of the double (100·122/142 twice vs 100·120/142 and 100·124/142), and a tie that prints as
// one number must not hand one cell "best" and the other "second".
double as_printed(double mean) { return std::round(mean * 100.0) / 100.0; }

// Rank of each cell's mean in one column among the cells of its test set (recall on other data
// does not compare): 1 = best, 2 = second, 0 = neither (or no value).
std::vector<int> column_ranks(const ExperimentResults& r, size_t d, size_t k) {
  std::vector<int> ranks;
  for (const auto& c : r.cells) {
    std::vector<double> means;  // distinct printed means of this cell's test set, highest first
    for (const auto& other : r.cells) {
      if (other.test_set == c.test_set && other.summary[d][k].n > 0)
        means.push_back(as_printed(other.summary[d][k].mean));
    }
    std::sort(means.begin(), means.end(), std::greater<>());
    means.erase(std::unique(means.begin(), means.end()), means.end());
    const auto& s = c.summary[d][k];
    const double m = as_printed(s.mean);
    int rank = 0;
    // A set where every cell has the same mean (e.g. R@5 = 100 everywhere) ranks nothing.
    if (s.n > 0 && means.size() >= 2 && m == means[0])
      rank = 1;
    else if (s.n > 0 && means.size() >= 2 && m == means[1])
      rank = 2;
    ranks.push_back(rank);
  }
  return ranks;
}

// Whether the cells span more than one test set (the marks then rank within each set).
bool several_test_sets(const ExperimentResults& r) {
  for (const auto& c : r.cells)
    if (c.test_set != r.cells.front().test_set) return true;
  return false;
}

// Whether s[i] starts a word: first, or after a space or an opening bracket.
bool opens_word(const std::string& s, size_t i) {
  return i == 0 || s[i - 1] == ' ' || s[i - 1] == '(' || s[i - 1] == '[';
}

std::string latex_escape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    switch (c) {
      case '\\': out += "\\textbackslash{}"; break;
      case '~': out += "\\textasciitilde{}"; break;
      case '^': out += "\\textasciicircum{}"; break;
      case '&': case '%': case '$': case '#': case '_': case '{': case '}':
        out += '\\';
        out += c;
        break;
      // A quote that opens a word ("split 'val'") is LaTeX's opening quote; a straight ' or "
      // there typesets as a closing one. An apostrophe ("model's") stays as it is.
      case '\'':
        out += opens_word(s, i) ? "`" : "'";
        break;
      case '"':
        out += opens_word(s, i) ? "``" : "''";
        break;
      default: out += c;
    }
  }
  // The labels' Greek and accented letters, as math so pdflatex needs no Unicode set-up.
  const std::pair<const char*, const char*> kMath[] = {
      {"γ", "$\\gamma$"}, {"Ḡ", "$\\bar{G}$"}, {"·", "$\\cdot$"}, {"±", "$\\pm$"},
      {"−", "$-$"},       {"∈", "$\\in$"}};
  for (const auto& [from, to] : kMath) {
    for (size_t pos = out.find(from); pos != std::string::npos; pos = out.find(from, pos)) {
      out.replace(pos, std::string(from).size(), to);
      pos += std::string(to).size();
    }
  }
  return out;
}

const CellResult& cell_of(const ExperimentResults& r, int index) { return r.cells.at(index); }

std::string seeds_text(const ExperimentResults& r) {
  std::string out;
  for (auto s : r.seeds) out += (out.empty() ? "" : ", ") + std::to_string(s);
  return out;
}

std::string significance_text() {
  return "paired t-test over seeds (two-sided, α = " + fixed(kSignificanceLevel, 2) +
         "; n − 1 degrees of freedom; none where every seed differs by the same amount, 'no "
         "spread', as the t statistic is undefined there); per seed, exact McNemar on the test "
         "queries one run retrieves at rank 1 and the other does not";
}

// "yes" / "no" at kSignificanceLevel, or why there is no test ("n < 2", "no spread").
std::string significance_cell(const PairedComparison& p) {
  if (*untested_reason(p)) return untested_reason(p);
  return is_significant(p.p_two_sided, kSignificanceLevel) ? "yes" : "no";
}

std::string mcnemar_list(const std::vector<double>& ps) {
  std::string out;
  for (double p : ps) out += (out.empty() ? "" : " ") + (std::isnan(p) ? "–" : p_text(p));
  return out;
}

std::string transfer_note() {
  return "transfer: each run's selected checkpoint evaluated on other data (hnclip experiment "
         "eval); R@1, percent, mean ± sample std over the seeds evaluated there";
}

std::string transfer_name(const TransferColumn& t) { return t.split + " (" + t.benchmark + ")"; }

// "140 images", and how many of them its runs trained on where any: their recall is not transfer.
std::string transfer_images(const TransferColumn& t) {
  std::string text = std::to_string(t.images) + " images";
  if (t.training_images && *t.training_images > 0)
    text += " (" + std::to_string(*t.training_images) +
            " of them training images of its runs: not transfer)";
  return text;
}

}  // namespace

std::string experiment_controls_text(const ExperimentResults& r) {
  if (!r.controls) {
    return "controls: NONE (--no-controls) — these numbers have no γ = 0 control beside them and "
           "show no gain of the margins";
  }
  return "controls: included — for each γ > 0 cell, γ = 0 with everything else equal (paired), "
         "with a learnt scale, and at fixed scales; 'strongest' = the best γ = 0 cell of its "
         "context on the selection rule's split";
}

std::string experiment_report_text(const ExperimentResults& r) {
  std::ostringstream out;
  out << "experiment " << r.experiment.id << " \"" << r.experiment.name << "\": "
      << r.experiment.status << ", " << r.runs_finished << "/" << r.runs_total
      << " runs with a result; seeds " << seeds_text(r) << "\n";
  out << r.selection_rule << "\n" << experiment_controls_text(r) << "\n";
  out << "recall on the test split, percent, mean ± sample std over seeds; * best, + second per "
         "column"
      << (several_test_sets(r) ? " among the cells of one test set (recall on other data does "
                                 "not compare)"
                               : "")
      << "\n\n";
  out << pad_column("cell", kLabelWidth) << pad_column("role", 16) << pad_column("n", 4);
  for (size_t d = 0; d < 2; ++d) {
    for (int k : kExperimentKs) {
      out << pad_column(std::string(kExperimentDirections[d]) + " R@" + std::to_string(k),
                        kValueWidth);
    }
  }
  out << "\n";
  std::array<std::array<std::vector<int>, kExperimentKs.size()>, 2> ranks;
  for (size_t d = 0; d < 2; ++d)
    for (size_t k = 0; k < kExperimentKs.size(); ++k) ranks[d][k] = column_ranks(r, d, k);
  for (size_t i = 0; i < r.cells.size(); ++i) {
    const auto& c = r.cells[i];
    out << pad_column(c.cell.label, kLabelWidth) << pad_column(c.cell.role, 16)
        << pad_column(std::to_string(c.finished) + "/" + std::to_string(c.seeds.size()), 4);
    for (size_t d = 0; d < 2; ++d) {
      for (size_t k = 0; k < kExperimentKs.size(); ++k) {
        const int rank = ranks[d][k][i];
        out << pad_column(mean_std(c.summary[d][k]) + (rank == 1   ? " *"
                                                       : rank == 2 ? " +"
                                                                   : ""),
                          kValueWidth);
      }
    }
    out << "\n";
  }
  if (!r.comparisons.empty()) {
    out << "\nmethod − control, R@1 on the test split: mean ± std of the per-seed differences, t, "
           "p, seeds improved; "
        << significance_text() << "\n\n";
    out << pad_column("method", kLabelWidth) << pad_column("control", kLabelWidth)
        << pad_column("kind", 14);
    for (const char* d : kExperimentDirections) {
      out << pad_column(std::string(d) + " Δ", kValueWidth) << pad_column("t", 8)
          << pad_column("p", 8) << pad_column("better", 8) << pad_column("signif.", 10)
          << pad_column("McNemar p", 22);
    }
    out << "\n";
    for (const auto& cmp : r.comparisons) {
      out << pad_column(cell_of(r, cmp.method_cell).cell.label, kLabelWidth)
          << pad_column(cell_of(r, cmp.control_cell).cell.label, kLabelWidth)
          << pad_column(cmp.kind, 14);
      for (size_t d = 0; d < 2; ++d) {
        const auto& p = cmp.r1[d];
        out << pad_column(p.n == 0 ? ""
                                   : signed_fixed(p.mean_diff, 2) +
                                         (p.n >= 2 ? " ± " + fixed(p.std_diff, 2) : ""),
                          kValueWidth)
            << pad_column(signed_fixed(p.t, 2), 8) << pad_column(p_text(p.p_two_sided), 8)
            << pad_column(std::to_string(p.improved) + "/" + std::to_string(p.n), 8)
            << pad_column(significance_cell(p), 10)
            << pad_column(mcnemar_list(cmp.mcnemar_p[d]), 22);
      }
      out << "\n";
    }
  } else if (r.controls) {
    out << "\nno γ > 0 cell, so no comparison against controls\n";
  }
  if (!r.transfers.empty()) {
    out << "\n" << transfer_note() << "\n";
    for (size_t t = 0; t < r.transfers.size(); ++t)
      out << "  [" << t + 1 << "] " << transfer_name(r.transfers[t]) << ", "
          << transfer_images(r.transfers[t]) << "\n";
    out << "\n"
        << pad_column("cell", kLabelWidth) << pad_column("role", 16)
        << pad_column("test t2i R@1", kValueWidth) << pad_column("test i2t R@1", kValueWidth);
    for (size_t t = 0; t < r.transfers.size(); ++t) {
      const std::string tag = "[" + std::to_string(t + 1) + "] ";
      out << pad_column("n", 4) << pad_column(tag + "t2i R@1", kValueWidth)
          << pad_column(tag + "i2t R@1", kValueWidth);
    }
    out << "\n";
    for (size_t i = 0; i < r.cells.size(); ++i) {
      const auto& c = r.cells[i];
      out << pad_column(c.cell.label, kLabelWidth) << pad_column(c.cell.role, 16)
          << pad_column(mean_std(c.summary[0][0]), kValueWidth)
          << pad_column(mean_std(c.summary[1][0]), kValueWidth);
      for (const auto& t : r.transfers) {
        out << pad_column(std::to_string(t.evaluated[i]), 4)
            << pad_column(mean_std(t.r1[i][0]), kValueWidth)
            << pad_column(mean_std(t.r1[i][1]), kValueWidth);
      }
      out << "\n";
    }
  }
  return out.str();
}

std::string experiment_report_csv(const ExperimentResults& r) {
  std::ostringstream out;
  out << "cell,label,role,selection,seeds_with_result,seeds";
  for (const char* d : kExperimentDirections) {
    for (int k : kExperimentKs) out << "," << d << "_R@" << k << "_mean," << d << "_R@" << k << "_std";
  }
  out << "\n";
  for (const auto& c : r.cells) {
    out << c.cell.cell << "," << csv_field(c.cell.label) << "," << c.cell.role << ","
        << r.selection << "," << c.finished << "," << c.seeds.size();
    for (size_t d = 0; d < 2; ++d) {
      for (size_t k = 0; k < kExperimentKs.size(); ++k) {
        const auto& s = c.summary[d][k];
        out << "," << fixed(s.mean, 4) << "," << fixed(s.std, 4);
      }
    }
    out << "\n";
  }
  out << "\nmethod_cell,method,control_cell,control,kind";
  for (const char* d : kExperimentDirections) {
    out << "," << d << "_R@1_diff_mean," << d << "_R@1_diff_std," << d << "_t," << d << "_p," << d
        << "_improved," << d << "_n," << d << "_significant," << d << "_mcnemar_p_per_seed";
  }
  out << "\n";
  for (const auto& cmp : r.comparisons) {
    out << cmp.method_cell << "," << csv_field(cell_of(r, cmp.method_cell).cell.label) << ","
        << cmp.control_cell << "," << csv_field(cell_of(r, cmp.control_cell).cell.label) << ","
        << csv_field(cmp.kind);
    for (size_t d = 0; d < 2; ++d) {
      const auto& p = cmp.r1[d];
      out << "," << fixed(p.mean_diff, 4) << "," << fixed(p.std_diff, 4) << "," << fixed(p.t, 4)
          << "," << (std::isnan(p.p_two_sided) ? "" : fixed(p.p_two_sided, 6)) << "," << p.improved
          << "," << p.n << "," << significance_cell(p) << "," << mcnemar_list(cmp.mcnemar_p[d]);
    }
    out << "\n";
  }
  if (!r.transfers.empty()) {
    out << "\ncell,label,role,benchmark,split,images,seeds_evaluated,t2i_R@1_mean,t2i_R@1_std,"
           "i2t_R@1_mean,i2t_R@1_std,training_images\n";
    for (const auto& t : r.transfers) {
      for (size_t i = 0; i < r.cells.size(); ++i) {
        const auto& c = r.cells[i];
        out << c.cell.cell << "," << csv_field(c.cell.label) << "," << c.cell.role << ","
            << csv_field(t.benchmark) << "," << csv_field(t.split) << "," << t.images << ","
            << t.evaluated[i] << "," << fixed(t.r1[i][0].mean, 4) << "," << fixed(t.r1[i][0].std, 4)
            << "," << fixed(t.r1[i][1].mean, 4) << "," << fixed(t.r1[i][1].std, 4) << ","
            << (t.training_images ? std::to_string(*t.training_images) : std::string()) << "\n";
      }
    }
  }
  return out.str();
}

std::string experiment_report_latex(const ExperimentResults& r) {
  std::ostringstream out;
  out << "% experiment " << r.experiment.id << " (" << r.experiment.name << "), seeds "
      << seeds_text(r) << "\n% " << r.selection_rule << "\n% " << experiment_controls_text(r)
      << "\n";
  out << "\\begin{table}[t]\n\\centering\n\\small\n\\begin{tabular}{ll"
      << std::string(2 * kExperimentKs.size(), 'c') << "}\n\\toprule\n";
  out << " & & \\multicolumn{" << kExperimentKs.size() << "}{c}{Text$\\to$Image} & \\multicolumn{"
      << kExperimentKs.size() << "}{c}{Image$\\to$Text} \\\\\n";
  out << "\\cmidrule(lr){3-" << 2 + kExperimentKs.size() << "}\\cmidrule(lr){"
      << 3 + kExperimentKs.size() << "-" << 2 + 2 * kExperimentKs.size() << "}\n";
  out << "Configuration & Role";
  for (size_t d = 0; d < 2; ++d)
    for (int k : kExperimentKs) out << " & R@" << k;
  out << " \\\\\n\\midrule\n";
  std::array<std::array<std::vector<int>, kExperimentKs.size()>, 2> ranks;
  for (size_t d = 0; d < 2; ++d)
    for (size_t k = 0; k < kExperimentKs.size(); ++k) ranks[d][k] = column_ranks(r, d, k);
  for (size_t i = 0; i < r.cells.size(); ++i) {
    const auto& c = r.cells[i];
    out << latex_escape(c.cell.label) << " & " << latex_escape(c.cell.role);
    for (size_t d = 0; d < 2; ++d) {
      for (size_t k = 0; k < kExperimentKs.size(); ++k) {
        const auto& s = c.summary[d][k];
        std::string v = s.n == 0 ? "--"
                                 : fixed(s.mean, 2) + (s.n >= 2 ? "$\\pm$" + fixed(s.std, 2) : "");
        if (ranks[d][k][i] == 1) v = "\\textbf{" + v + "}";
        if (ranks[d][k][i] == 2) v = "\\underline{" + v + "}";
        out << " & " << v;
      }
    }
    out << " \\\\\n";
  }
  out << "\\bottomrule\n\\end{tabular}\n\\caption{" << latex_escape(r.experiment.name)
      << ": test recall (\\%), "
      << (r.seeds.size() == 1 ? std::string("one seed (no std)")
                              : "mean $\\pm$ std over " + std::to_string(r.seeds.size()) + " seeds")
      << "; " << latex_escape(r.selection_rule) << ". Best per column bold, second underlined"
      << (several_test_sets(r) ? ", among the cells of one test set" : "") << "."
      << (r.controls ? "" : " No controls (--no-controls).") << "}\n\\end{table}\n";
  if (!r.comparisons.empty()) {
    out << "\n\\begin{table}[t]\n\\centering\n\\small\n\\begin{tabular}{lllcccc}\n\\toprule\n";
    out << "Method & Control & Kind & $\\Delta$R@1 T$\\to$I & $p$ & $\\Delta$R@1 I$\\to$T & $p$ "
           "\\\\\n\\midrule\n";
    for (const auto& cmp : r.comparisons) {
      out << latex_escape(cell_of(r, cmp.method_cell).cell.label) << " & "
          << latex_escape(cell_of(r, cmp.control_cell).cell.label) << " & "
          << latex_escape(cmp.kind);
      for (size_t d = 0; d < 2; ++d) {
        const auto& p = cmp.r1[d];
        std::string v = p.n == 0 ? "--"
                                 : signed_fixed(p.mean_diff, 2) +
                                       (p.n >= 2 ? "$\\pm$" + fixed(p.std_diff, 2) : "");
        if (is_significant(p.p_two_sided, kSignificanceLevel)) v = "\\textbf{" + v + "}";
        out << " & " << v << " & " << (std::isnan(p.p_two_sided) ? "--" : p_text(p.p_two_sided));
      }
      out << " \\\\\n";
    }
    out << "\\bottomrule\n\\end{tabular}\n\\caption{Method $-$ control, R@1 (points), paired "
           "over seeds; bold: significant at $\\alpha = "
        << fixed(kSignificanceLevel, 2) << "$ (two-sided paired $t$-test).}\n\\end{table}\n";
  }
  if (!r.transfers.empty()) {
    // Table A7 / A10 layout: in-domain test beside each transfer target, R@1 both directions.
    out << "\n\\begin{table}[t]\n\\centering\n\\small\n\\begin{tabular}{ll"
        << std::string(2 * (r.transfers.size() + 1), 'c') << "}\n\\toprule\n & & "
        << "\\multicolumn{2}{c}{Test (in-domain)}";
    for (const auto& t : r.transfers)
      out << " & \\multicolumn{2}{c}{" << latex_escape(t.split) << "}";
    out << " \\\\\nConfiguration & Role";
    for (size_t t = 0; t <= r.transfers.size(); ++t) out << " & T$\\to$I & I$\\to$T";
    out << " \\\\\n\\midrule\n";
    auto cell_value = [](const SeedSummary& s) {
      return s.n == 0 ? std::string("--")
                      : fixed(s.mean, 2) + (s.n >= 2 ? "$\\pm$" + fixed(s.std, 2) : "");
    };
    for (size_t i = 0; i < r.cells.size(); ++i) {
      const auto& c = r.cells[i];
      out << latex_escape(c.cell.label) << " & " << latex_escape(c.cell.role) << " & "
          << cell_value(c.summary[0][0]) << " & " << cell_value(c.summary[1][0]);
      for (const auto& t : r.transfers)
        out << " & " << cell_value(t.r1[i][0]) << " & " << cell_value(t.r1[i][1]);
      out << " \\\\\n";
    }
    out << "\\bottomrule\n\\end{tabular}\n\\caption{Transfer: R@1 (\\%) of each run's selected "
           "checkpoint (" << latex_escape(r.selection_rule) << ") on";
    for (size_t t = 0; t < r.transfers.size(); ++t)
      out << (t ? ";" : "") << " " << latex_escape(transfer_name(r.transfers[t])) << ", "
          << latex_escape(transfer_images(r.transfers[t]));
    out << ".}\n\\end{table}\n";
  }
  return out.str();
}

nlohmann::json experiment_report_json(const ExperimentResults& r) {
  auto num = [](double v) -> nlohmann::json {
    if (std::isnan(v)) return nullptr;
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
  };
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& c : r.cells) {
    nlohmann::json seeds = nlohmann::json::array();
    for (const auto& s : c.seeds) {
      nlohmann::json recall;
      for (size_t d = 0; d < 2; ++d)
        for (size_t k = 0; k < kExperimentKs.size(); ++k)
          recall[kExperimentDirections[d]]["R@" + std::to_string(kExperimentKs[k])] = num(s.recall[d][k]);
      seeds.push_back({{"seed", s.seed},
                       {"run_id", s.run_id},
                       {"run_status", s.run_status},
                       {"reused", s.reused},
                       {"epoch", s.epoch},
                       {"selection_score", num(s.selection_score)},
                       {"recall", recall}});
    }
    nlohmann::json summary;
    for (size_t d = 0; d < 2; ++d)
      for (size_t k = 0; k < kExperimentKs.size(); ++k) {
        const auto& s = c.summary[d][k];
        summary[kExperimentDirections[d]]["R@" + std::to_string(kExperimentKs[k])] = {
            {"mean", num(s.mean)}, {"std", num(s.std)}, {"n", s.n}};
      }
    cells.push_back({{"cell", c.cell.cell},
                     {"label", c.cell.label},
                     {"role", c.cell.role},
                     {"settings", nlohmann::json::parse(c.cell.settings_json)},
                     {"selection_mean", num(c.selection_mean)},
                     {"summary", summary},
                     {"seeds", seeds}});
  }
  nlohmann::json comparisons = nlohmann::json::array();
  for (const auto& cmp : r.comparisons) {
    nlohmann::json j{{"method_cell", cmp.method_cell},
                     {"control_cell", cmp.control_cell},
                     {"kind", cmp.kind}};
    for (size_t d = 0; d < 2; ++d) {
      const auto& p = cmp.r1[d];
      nlohmann::json mc = nlohmann::json::array();
      for (double v : cmp.mcnemar_p[d]) mc.push_back(num(v));
      j[kExperimentDirections[d]] = {
          {"r1_diff_mean", num(p.mean_diff)},
          {"r1_diff_std", num(p.std_diff)},
          {"t", num(p.t)},
          {"p", num(p.p_two_sided)},
          {"n", p.n},
          {"improved", p.improved},
          {"worse", p.worse},
          {"significant", is_significant(p.p_two_sided, kSignificanceLevel)},
          {"untested",
           *untested_reason(p) ? nlohmann::json(untested_reason(p)) : nlohmann::json(nullptr)},
          {"mcnemar_p_per_seed", mc}};
    }
    comparisons.push_back(std::move(j));
  }
  nlohmann::json transfers = nlohmann::json::array();
  for (const auto& t : r.transfers) {
    nlohmann::json per_cell = nlohmann::json::array();
    for (size_t i = 0; i < r.cells.size(); ++i) {
      nlohmann::json j{{"cell", r.cells[i].cell.cell}, {"seeds_evaluated", t.evaluated[i]}};
      for (size_t d = 0; d < 2; ++d)
        j[kExperimentDirections[d]] = {{"R@1", {{"mean", num(t.r1[i][d].mean)},
                                                {"std", num(t.r1[i][d].std)},
                                                {"n", t.r1[i][d].n}}}};
      per_cell.push_back(std::move(j));
    }
    transfers.push_back({{"benchmark", t.benchmark},
                         {"split", t.split},
                         {"images", t.images},
                         {"training_images", t.training_images ? nlohmann::json(*t.training_images)
                                                               : nlohmann::json(nullptr)},
                         {"cells", per_cell}});
  }
  return {{"experiment_id", r.experiment.id},
          {"name", r.experiment.name},
          {"status", r.experiment.status},
          {"selection", r.selection},
          {"selection_rule", r.selection_rule},
          {"controls", r.controls},
          {"controls_note", experiment_controls_text(r)},
          {"significance_level", kSignificanceLevel},
          {"seeds", r.seeds},
          {"runs_total", r.runs_total},
          {"runs_with_result", r.runs_finished},
          {"cells", cells},
          {"comparisons", comparisons},
          {"transfers", transfers}};
}

}  // namespace hnclip

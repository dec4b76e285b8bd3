#include "experiment/experiment_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "text/control_character.h"

namespace hnclip {

namespace {

// The keys that make a γ = 0 run a control rather than another configuration: what the margins
// and the temperature set. Everything else must match for a comparison to be paired.
// `hn`: a framework's control is its own global term (--hn off), its method the HN loss in it.
const std::vector<std::string> kLossScaleKeys{"loss_gamma", "loss_gbar", "logit_scale",
                                              "fixed_scale", "hn"};
// Keys that only say how a run is executed or called, not what it computes, left out when a
// finished run is matched for reuse (thread counts reorder float sums in the last bits at most).
const std::vector<std::string> kExecutionOnlyKeys{"name", "threads", "loader_workers"};

void require(bool ok, const std::string& message) {
  if (!ok) throw ConfigError(message);
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string number_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

std::string value_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return number_text(v.get<double>());
  return v.dump();
}

nlohmann::json default_config_json() {
  nlohmann::json j = TrainConfig{};
  return j;
}

// The base config with `settings` written over it, read back and validated; errors name `what`.
TrainConfig config_with(const nlohmann::json& base, const nlohmann::json& settings,
                        const std::string& what) {
  nlohmann::json j = default_config_json();
  for (const auto& [k, v] : base.items()) j[k] = v;
  for (const auto& [k, v] : settings.items()) j[k] = v;
  TrainConfig c;
  try {
    from_json(j, c);
    c.validate();
  } catch (const ConfigError& e) {
    throw ConfigError(what + ": " + e.what());
  }
  // γ = 0 ignores Ḡ: one spelling, so a paired control and an axis's γ = 0 cell are one cell and
  // no run pays for frozen caption features it never uses.
  if (c.loss_gamma == 0) c.loss_gbar = GbarMode::kRecomputed;
  // Likewise plain InfoNCE is the plain framework's global term with or without "HN at γ 0".
  if (c.loss_gamma == 0 && c.framework == Framework::kPlain) c.hn = true;
  return c;
}

std::string settings_text(const nlohmann::json& settings) {
  std::string out;
  for (const auto& [k, v] : settings.items()) {
    out += (out.empty() ? "" : ", ") + k + "=" + value_text(v);
  }
  return out.empty() ? "the base configuration" : out;
}

std::string gamma_label(const TrainConfig& c) {
  if (c.loss_gamma == 0) return c.hn ? "InfoNCE" : to_string(c.framework) + "'s own loss";
  return "HN γ " + number_text(c.loss_gamma) +
         (c.loss_gbar == GbarMode::kFrozen ? " Ḡ frozen" : "");
}

std::string scale_label(const TrainConfig& c) {
  if (c.fixed_scale) {
    return c.logit_scale > 0 ? "s " + number_text(c.logit_scale) + " fixed" : "s fixed (start's)";
  }
  return c.logit_scale > 0 ? "s learnt from " + number_text(c.logit_scale) : "s learnt";
}

std::string cell_label(const ExperimentCell& cell) {
  std::string label = gamma_label(cell.config) + " · " + scale_label(cell.config);
  for (const auto& [k, v] : cell.settings.items()) {
    if (!contains(kLossScaleKeys, k)) label += " · " + k + " " + value_text(v);
  }
  return label;
}

// Same scale setting: both fixed at the same s, or both learnt from the same start.
bool same_scale(const TrainConfig& a, const TrainConfig& b) {
  return a.fixed_scale == b.fixed_scale && a.logit_scale == b.logit_scale;
}

// Every product of the axes' values, the first axis slowest.
std::vector<nlohmann::json> axis_product(const std::vector<ExperimentAxis>& axes) {
  std::vector<nlohmann::json> out{nlohmann::json::object()};
  for (const auto& axis : axes) {
    std::vector<nlohmann::json> next;
    for (const auto& partial : out) {
      for (const auto& v : axis.values) {
        auto s = partial;
        s[axis.key] = v;
        next.push_back(std::move(s));
      }
    }
    out = std::move(next);
  }
  return out;
}

uint64_t seed_value(const nlohmann::json& v, const std::string& what) {
  require(v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0),
          what + ": a seed must be a non-negative integer (got " + v.dump() + ")");
  return v.get<uint64_t>();
}

}  // namespace

bool is_control_role(const std::string& role) {
  return role == kRolePaired || role == kRoleLearnableScale || role == kRoleFixedScale;
}

std::vector<std::string> experiment_axis_keys() {
  std::vector<std::string> keys;
  // Named: items() of a temporary would outlive it in the range-for (a dangling proxy).
  const nlohmann::json defaults = default_config_json();
  for (const auto& [k, v] : defaults.items()) {
    if (k != "name") keys.push_back(k);
  }
  return keys;
}

std::string control_context(const TrainConfig& config) {
  nlohmann::json j = config;
  for (const auto& k : kLossScaleKeys) j.erase(k);
  for (const auto& k : kExecutionOnlyKeys) j.erase(k);
  j.erase("seed");
  return j.dump();
}

nlohmann::json comparable_config(const TrainConfig& config) {
  nlohmann::json j = config;
  for (const auto& k : kExecutionOnlyKeys) j.erase(k);
  return j;
}

ExperimentAxis parse_axis(const std::string& text) {
  const auto eq = text.find('=');
  require(eq != std::string::npos && eq > 0,
          "--set " + text + ": expected KEY=V1,V2,… (e.g. loss_gamma=0,0.5)");
  ExperimentAxis axis;
  axis.key = text.substr(0, eq);
  const auto defaults = default_config_json();
  if (axis.key == "seed") {
    // Seeds are an axis like any other, spelled --seeds as well; typed as integers here.
  } else {
    const std::string near = nearest_config_key(axis.key);
    require(defaults.contains(axis.key) && axis.key != "name",
            "--set " + text + ": '" + axis.key + "' is not a run configuration key" +
                (near.empty() ? " (the keys are those of a run's config JSON, e.g. loss_gamma, "
                                "loss_gbar, logit_scale, fixed_scale, lr, data_fraction)"
                              : " (did you mean '" + near + "'?)"));
  }
  const nlohmann::json& like = axis.key == "seed" ? nlohmann::json(uint64_t{0}) : defaults[axis.key];
  std::string rest = text.substr(eq + 1);
  require(!rest.empty(), "--set " + text + ": no values for " + axis.key);
  std::stringstream in(rest);
  std::string word;
  while (std::getline(in, word, ',')) {
    const std::string what = "--set " + axis.key + "=" + word;
    require(!word.empty(), "--set " + text + ": an empty value for " + axis.key);
    if (like.is_boolean()) {
      require(word == "true" || word == "false",
              what + ": " + axis.key + " takes true or false");
      axis.values.emplace_back(word == "true");
    } else if (like.is_number_integer() || like.is_number_unsigned()) {
      char* end = nullptr;
      errno = 0;
      const long long v = std::strtoll(word.c_str(), &end, 10);
      require(end && *end == '\0' && errno == 0, what + ": " + axis.key + " takes an integer");
      if (like.is_number_unsigned()) {
        require(v >= 0, what + ": " + axis.key + " takes a non-negative integer");
        axis.values.emplace_back(static_cast<uint64_t>(v));
      } else {
        axis.values.emplace_back(static_cast<int64_t>(v));
      }
    } else if (like.is_number()) {
      char* end = nullptr;
      const double v = std::strtod(word.c_str(), &end);
      require(end && *end == '\0' && std::isfinite(v), what + ": " + axis.key + " takes a number");
      axis.values.emplace_back(v);
    } else {
      axis.values.emplace_back(word);
    }
  }
  return axis;
}

void to_json(nlohmann::json& j, const ExperimentSpec& s) {
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& a : s.axes) axes.push_back({{"key", a.key}, {"values", a.values}});
  j = nlohmann::json{{"name", s.name},
                     {"preset", s.preset},
                     {"base", s.base},
                     {"axes", axes},
                     {"seeds", s.seeds},
                     {"controls", s.controls},
                     {"control_scales", s.control_scales},
                     {"parallel", s.parallel},
                     {"selection", s.selection}};
}

void from_json(const nlohmann::json& j, ExperimentSpec& s) {
  require(j.is_object(), "an experiment file must hold a JSON object");
  static const std::set<std::string> known{"name",     "preset",         "base",
                                           "axes",     "seeds",          "controls",
                                           "control_scales", "parallel", "selection"};
  for (const auto& [k, v] : j.items()) {
    require(known.count(k) > 0, "experiment key '" + k +
                                    "' is unknown (expected name, preset, base, axes, seeds, "
                                    "controls, control_scales, parallel, selection)");
  }
  ExperimentSpec out;
  try {
    if (j.contains("name")) out.name = j.at("name").get<std::string>();
    if (j.contains("preset")) out.preset = j.at("preset").get<std::string>();
    if (j.contains("base")) out.base = j.at("base");
    if (j.contains("seeds")) out.seeds = j.at("seeds").get<std::vector<uint64_t>>();
    if (j.contains("controls")) out.controls = j.at("controls").get<bool>();
    if (j.contains("control_scales"))
      out.control_scales = j.at("control_scales").get<std::vector<double>>();
    if (j.contains("parallel")) out.parallel = j.at("parallel").get<int>();
    if (j.contains("selection")) out.selection = j.at("selection").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(std::string("experiment file: a key has the wrong type (") + e.what() + ")");
  }
  require(out.base.is_object(), "experiment key 'base' must be an object of run config keys");
  if (j.contains("axes")) {
    const auto& axes = j.at("axes");
    require(axes.is_array(), "experiment key 'axes' must be a list of {key, values}");
    for (const auto& a : axes) {
      require(a.is_object() && a.contains("key") && a.at("key").is_string() &&
                  a.contains("values") && a.at("values").is_array(),
              "experiment key 'axes': each axis needs a string 'key' and a list 'values' (got " +
                  a.dump() + ")");
      out.axes.push_back({a.at("key").get<std::string>(), a.at("values").get<std::vector<nlohmann::json>>()});
    }
  }
  s = std::move(out);
}

ExperimentPlan expand_experiment(const ExperimentSpec& spec, bool confirmed) {
  const auto defaults = default_config_json();
  try {
    require_known_config_keys(spec.base);
  } catch (const ConfigError& e) {
    throw ConfigError(std::string("base configuration: ") + e.what());
  }
  require(spec.parallel >= 1, "--parallel must be >= 1 (got " + std::to_string(spec.parallel) + ")");
  const std::string in_name = control_character_in(spec.name);
  require(in_name.empty(),
          "the experiment's name (--name, or the file's \"name\") must be one "
          "line without control characters (it has " +
              in_name + ")");
  for (double s : spec.control_scales) {
    require(std::isfinite(s) && s > 0 && s <= 100,
            "--control-scales: each scale must be in (0, 100] (got " + number_text(s) + ")");
  }

  // Seeds: an axis named `seed` replaces the seed list.
  std::vector<uint64_t> seeds = spec.seeds;
  std::vector<ExperimentAxis> axes;
  std::set<std::string> seen;
  for (const auto& axis : spec.axes) {
    require(seen.insert(axis.key).second, "--set " + axis.key + " is given twice");
    require(!axis.values.empty(), "--set " + axis.key + ": the axis has no values (empty grid)");
    // A value twice would be one cell (cells are distinct configurations) and look like two.
    for (size_t i = 0; i < axis.values.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        require(axis.values[i] != axis.values[j],
                "--set " + axis.key + ": the value " + axis.values[i].dump() + " is given twice");
    if (axis.key == "seed") {
      seeds.clear();
      for (const auto& v : axis.values) seeds.push_back(seed_value(v, "--set seed"));
      continue;
    }
    if (!defaults.contains(axis.key)) {
      try {
        require_known_config_key(axis.key);
      } catch (const ConfigError& e) {
        throw ConfigError("--set " + axis.key + ": " + e.what());
      }
    }
    require(axis.key != "name", "--set name: every run is named by its cell and seed");
    axes.push_back(axis);
  }
  require(!seeds.empty(), "--seeds: no seeds (empty grid)");
  {
    std::set<uint64_t> unique(seeds.begin(), seeds.end());
    require(unique.size() == seeds.size(), "--seeds: a seed is given twice");
  }

  ExperimentPlan plan;
  TrainConfig base = config_with(spec.base, nlohmann::json::object(), "base configuration");
  std::set<std::string> have;  // comparable configs of the cells so far (seedless)
  auto add_cell = [&](const nlohmann::json& settings, const std::string& what) {
    TrainConfig c = config_with(spec.base, settings, what);
    c.seed = 0;
    c.name.clear();
    if (!have.insert(comparable_config(c).dump()).second) return;
    ExperimentCell cell;
    cell.index = static_cast<int>(plan.cells.size());
    cell.settings = settings;
    cell.config = c;
    plan.cells.push_back(std::move(cell));
  };
  for (const auto& settings : axis_product(axes)) {
    add_cell(settings, "--set " + settings_text(settings));
  }

  if (spec.controls) {
    // Contexts in order of first appearance, each with its method cells' settings.
    std::vector<std::string> contexts;
    std::map<std::string, std::vector<int>> methods;
    for (const auto& cell : plan.cells) {
      if (cell.config.loss_gamma <= 0) continue;
      const auto ctx = control_context(cell.config);
      if (!methods.count(ctx)) contexts.push_back(ctx);
      methods[ctx].push_back(cell.index);
    }
    for (const auto& ctx : contexts) {
      const auto method_cells = methods[ctx];
      nlohmann::json common = plan.cells[method_cells.front()].settings;
      for (const auto& k : kLossScaleKeys) common.erase(k);
      // A framework's control is the framework as published: its own global term.
      const bool own_term = plan.cells[method_cells.front()].config.framework != Framework::kPlain;
      auto control = [&](bool fixed, double scale) {
        nlohmann::json s = common;
        s["loss_gamma"] = 0.0;
        if (own_term) s["hn"] = false;
        s["fixed_scale"] = fixed;
        s["logit_scale"] = scale;
        add_cell(s, "control " + settings_text(s));
      };
      for (int m : method_cells) {
        const auto& c = plan.cells[m].config;
        control(c.fixed_scale, c.logit_scale);
      }
      control(false, 0.0);
      for (double s : spec.control_scales) control(true, s);
    }
  }

  // Roles and labels, now that every cell of each context is known.
  for (auto& cell : plan.cells) {
    const auto& c = cell.config;
    if (c.loss_gamma > 0) {
      cell.role = kRoleMethod;
    } else {
      const auto ctx = control_context(c);
      bool has_method = false, paired = false;
      for (const auto& other : plan.cells) {
        if (other.config.loss_gamma <= 0 || control_context(other.config) != ctx) continue;
        has_method = true;
        paired = paired || same_scale(other.config, c);
      }
      cell.role = !has_method ? kRoleBaseline
                  : paired    ? kRolePaired
                  : c.fixed_scale ? kRoleFixedScale
                                  : kRoleLearnableScale;
    }
    cell.label = cell_label(cell);
  }

  const int64_t runs = static_cast<int64_t>(plan.cells.size()) * static_cast<int64_t>(seeds.size());
  require(confirmed || runs <= kMaxRunsWithoutConfirmation,
          "the experiment has " + std::to_string(runs) + " runs (" +
              std::to_string(plan.cells.size()) + " configurations × " +
              std::to_string(seeds.size()) + " seeds), more than " +
              std::to_string(kMaxRunsWithoutConfirmation) + "; pass --yes to start it anyway");

  const int threads = std::max(1, base.threads / spec.parallel);
  for (const auto& cell : plan.cells) {
    for (uint64_t seed : seeds) {
      ExperimentSlot slot;
      slot.cell = cell.index;
      slot.seed = seed;
      slot.config = cell.config;
      slot.config.seed = seed;
      slot.config.threads = threads;
      slot.config.name = (spec.name.empty() ? "experiment" : spec.name) + " · " + cell.label +
                         " · seed " + std::to_string(seed);
      plan.slots.push_back(std::move(slot));
    }
  }

  const bool has_val = defaults.contains("val_split") && spec.base.contains("val_split") &&
                       spec.base.at("val_split").is_string() &&
                       !spec.base.at("val_split").get<std::string>().empty();
  if (spec.selection == kSelectAuto) {
    plan.selection = has_val ? kSelectVal : kSelectLast;
  } else {
    require(spec.selection == kSelectVal || spec.selection == kSelectLast ||
                spec.selection == kSelectTest,
            "--select must be auto, val, last or test (got '" + spec.selection + "')");
    require(spec.selection != kSelectVal || has_val,
            "--select val needs a validation split (--val-split)");
    plan.selection = spec.selection;
  }
  return plan;
}

}  // namespace hnclip

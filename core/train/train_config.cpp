#include "train/train_config.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace hnclip {

namespace {
void require(bool ok, const std::string& message) {
  if (!ok) throw ConfigError(message);
}

template <typename T>
void read_key(const nlohmann::json& j, const char* key, T& out) {
  if (!j.contains(key)) return;
  try {
    out = j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw ConfigError(std::string("config key '") + key + "' has the wrong type: " +
                      j.at(key).dump());
  }
}
}  // namespace

void TrainConfig::validate() const {
  require(std::isfinite(loss_gamma) && loss_gamma >= 0,
          "--gamma must be finite and >= 0 (got " + std::to_string(loss_gamma) + ")");
  require(loss_gbar == "recomputed" || loss_gbar == "frozen",
          "--gbar must be 'recomputed' or 'frozen' (got '" + loss_gbar + "')");
  require(std::isfinite(loss_token_weight) && loss_token_weight >= 0,
          "--token-weight must be finite and >= 0");
  require(std::isfinite(logit_scale) && logit_scale >= 0 && logit_scale <= 100,
          "--logit-scale must be in (0, 100] (0 = keep the checkpoint's)");
  require(epochs >= 1, "--epochs must be >= 1 (got " + std::to_string(epochs) + ")");
  require(batch_size >= 2, "--batch must be >= 2 (got " + std::to_string(batch_size) + ")");
  require(std::isfinite(lr) && lr > 0, "--lr must be > 0");
  require(std::isfinite(weight_decay) && weight_decay >= 0, "--weight-decay must be >= 0");
  require(warmup_fraction >= 0 && warmup_fraction < 1, "--warmup must be in [0, 1)");
  require(std::isfinite(grad_clip) && grad_clip >= 0, "--grad-clip must be >= 0");
  require(std::isfinite(data_fraction) && data_fraction > 0 && data_fraction <= 1,
          "--data-fraction must be in (0, 1] (got " + std::to_string(data_fraction) + ")");
  require(probe_every >= 0, "--probe-every must be >= 0 (0 = off), got " + std::to_string(probe_every));
  require(gbar_snapshots >= 0, "--gbar-snapshots must be >= 0 (0 = off)");
  require(threads >= 1, "--threads must be >= 1");
  require(loader_workers >= 0, "--loader-workers must be >= 0");
  require(context_length >= 3, "--context-length must be >= 3");
  require(!long_clip || !init.empty(), "--long-clip needs an OpenAI CLIP state dict as --init");
  require(device == "auto" || device == "cpu" || device.rfind("cuda", 0) == 0,
          "--device must be auto, cpu or cuda[:N] (got '" + device + "')");
  require(peft == "none" || peft == "lora" || peft == "dora",
          "--peft must be none, lora or dora (got '" + peft + "')");
  require(peft_rank >= 1, "--rank must be >= 1 (got " + std::to_string(peft_rank) + ")");
  require(std::isfinite(peft_alpha) && peft_alpha > 0,
          "--alpha must be finite and > 0 (got " + std::to_string(peft_alpha) + ")");
  require(peft_towers == "image" || peft_towers == "text" || peft_towers == "both",
          "--peft-towers must be image, text or both (got '" + peft_towers + "')");
  require(precision == "auto" || precision == "fp32" || precision == "bf16",
          "--precision must be auto, fp32 or bf16 (got '" + precision + "')");
}

void to_json(nlohmann::json& j, const TrainConfig& c) {
  j = nlohmann::json{
      {"benchmark", c.benchmark}, {"benchmark_size", c.benchmark_size},
      {"benchmark_root", c.benchmark_root}, {"train_split", c.train_split},
      {"test_split", c.test_split}, {"data_fraction", c.data_fraction},
      {"data_seed", c.data_seed}, {"model", c.model}, {"init", c.init}, {"vocab", c.vocab}, {"long_clip", c.long_clip},
      {"context_length", c.context_length}, {"loss_gamma", c.loss_gamma},
      {"loss_gbar", c.loss_gbar}, {"loss_token_weight", c.loss_token_weight},
      {"logit_scale", c.logit_scale}, {"fixed_scale", c.fixed_scale}, {"epochs", c.epochs},
      {"batch_size", c.batch_size}, {"lr", c.lr}, {"weight_decay", c.weight_decay},
      {"warmup_fraction", c.warmup_fraction}, {"grad_clip", c.grad_clip}, {"probe_every", c.probe_every}, {"gbar_snapshots", c.gbar_snapshots}, {"seed", c.seed},
      {"device", c.device}, {"threads", c.threads}, {"loader_workers", c.loader_workers},
      {"eval_at_start", c.eval_at_start}, {"name", c.name}};
  j["peft"] = c.peft;
  j["peft_rank"] = c.peft_rank;
  j["peft_alpha"] = c.peft_alpha;
  j["peft_towers"] = c.peft_towers;
  j["precision"] = c.precision;
}

void from_json(const nlohmann::json& j, TrainConfig& c) {
  if (!j.is_object()) throw ConfigError("a run config must be a JSON object");
  read_key(j, "benchmark", c.benchmark); read_key(j, "benchmark_size", c.benchmark_size);
  read_key(j, "benchmark_root", c.benchmark_root); read_key(j, "train_split", c.train_split);
  read_key(j, "test_split", c.test_split); read_key(j, "data_fraction", c.data_fraction);
  read_key(j, "data_seed", c.data_seed); read_key(j, "model", c.model);
  read_key(j, "init", c.init); read_key(j, "vocab", c.vocab); read_key(j, "long_clip", c.long_clip); read_key(j, "context_length", c.context_length);
  read_key(j, "loss_gamma", c.loss_gamma); read_key(j, "loss_gbar", c.loss_gbar);
  read_key(j, "loss_token_weight", c.loss_token_weight);
  read_key(j, "logit_scale", c.logit_scale); read_key(j, "fixed_scale", c.fixed_scale);
  read_key(j, "epochs", c.epochs); read_key(j, "batch_size", c.batch_size);
  read_key(j, "lr", c.lr); read_key(j, "weight_decay", c.weight_decay);
  read_key(j, "warmup_fraction", c.warmup_fraction); read_key(j, "grad_clip", c.grad_clip);
  read_key(j, "probe_every", c.probe_every);
  read_key(j, "gbar_snapshots", c.gbar_snapshots);
  read_key(j, "seed", c.seed); read_key(j, "device", c.device); read_key(j, "threads", c.threads);
  read_key(j, "loader_workers", c.loader_workers); read_key(j, "eval_at_start", c.eval_at_start);
  read_key(j, "name", c.name);
  read_key(j, "peft", c.peft); read_key(j, "peft_rank", c.peft_rank);
  read_key(j, "peft_alpha", c.peft_alpha); read_key(j, "peft_towers", c.peft_towers);
  read_key(j, "precision", c.precision);
}

}  // namespace hnclip

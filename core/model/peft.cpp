#include "model/peft.h"

#include <torch/torch.h>

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <nlohmann/json.hpp>

namespace hnclip {

namespace {
constexpr const char* kAdapterMarker = "_adapter.";  // in every adapter parameter name, no OpenAI name

// One adaptable matrix: where its adapter lives and which base tensors it adapts.
struct Site {
  std::string weight_key;       // OpenAI name of the adapted weight
  torch::nn::Module* owner;     // module the adapter is registered on
  std::string adapter_name;     // submodule name there
  LinearAdapter* slot;          // the owner's member that holds it
  torch::Tensor weight, bias;
};

// Image tower first: the order of named_parameters(), and of the draws for A.
std::vector<Site> sites(const ClipModel& model, bool image, bool text) {
  auto& m = *model.ptr();
  std::vector<Site> out;
  auto add_tower = [&](const std::string& prefix, Transformer& t) {
    for (size_t i = 0; i < t->resblocks->size(); ++i) {
      auto* block = t->resblocks[i]->as<ResidualAttentionBlock>();
      auto* attn = block->attn.get();
      auto* mlp = block->mlp.get();
      const std::string p = prefix + "resblocks." + std::to_string(i) + ".";
      out.push_back({p + "attn.in_proj_weight", attn, "in_proj_adapter", &attn->in_proj_adapter,
                     attn->in_proj_weight, attn->in_proj_bias});
      out.push_back({p + "attn.out_proj.weight", attn, "out_proj_adapter", &attn->out_proj_adapter,
                     attn->out_proj->weight, attn->out_proj->bias});
      out.push_back({p + "mlp.c_fc.weight", mlp, "c_fc_adapter", &mlp->c_fc_adapter, mlp->c_fc->weight,
                     mlp->c_fc->bias});
      out.push_back({p + "mlp.c_proj.weight", mlp, "c_proj_adapter", &mlp->c_proj_adapter,
                     mlp->c_proj->weight, mlp->c_proj->bias});
    }
  };
  if (image) add_tower("visual.transformer.", m.visual->transformer);
  if (text) add_tower("transformer.", m.transformer);
  return out;
}

std::vector<Site> all_sites(const ClipModel& model) { return sites(model, true, true); }

void drop_adapters(ClipModel& model, bool fold) {
  torch::NoGradGuard no_grad;
  for (auto& s : all_sites(model)) {
    if (!*s.slot) continue;
    if (fold) s.weight.copy_((*s.slot)->merged_weight(s.weight));
    s.owner->unregister_module(s.adapter_name);
    *s.slot = nullptr;
  }
  for (auto& p : model->parameters()) p.set_requires_grad(true);
}
}  // namespace

void AdapterSpec::validate() const {
  if (rank < 1) throw std::invalid_argument("adapter rank must be >= 1 (got " + std::to_string(rank) + ")");
  if (!std::isfinite(alpha) || alpha <= 0) throw std::invalid_argument("adapter alpha must be > 0");
  if (towers != "image" && towers != "text" && towers != "both") {
    throw std::invalid_argument("adapter towers must be image, text or both (got '" + towers + "')");
  }
}

std::string to_string(AdapterKind kind) { return kind == AdapterKind::Dora ? "dora" : "lora"; }

AdapterKind adapter_kind_from_string(const std::string& s) {
  if (s == "lora") return AdapterKind::Lora;
  if (s == "dora") return AdapterKind::Dora;
  throw std::invalid_argument("adapter kind must be lora or dora (got '" + s + "')");
}

void to_json(nlohmann::json& j, const AdapterSpec& s) {
  j = nlohmann::json{{"kind", to_string(s.kind)}, {"rank", s.rank}, {"alpha", s.alpha}, {"towers", s.towers}};
}

void from_json(const nlohmann::json& j, AdapterSpec& s) {
  s.kind = adapter_kind_from_string(j.at("kind").get<std::string>());
  s.rank = j.at("rank").get<int64_t>();
  s.alpha = j.at("alpha").get<double>();
  s.towers = j.at("towers").get<std::string>();
  s.validate();
}

void attach_adapters(ClipModel& model, const AdapterSpec& spec, uint64_t seed) {
  spec.validate();
  if (has_adapters(model)) throw std::invalid_argument("the model already has adapters");
  auto generator = at::detail::createCPUGenerator(seed);
  for (auto& p : model->parameters()) p.set_requires_grad(false);
  for (auto& s : sites(model, spec.towers != "text", spec.towers != "image")) {
    *s.slot = s.owner->register_module(
        s.adapter_name, LinearAdapter(spec.kind, s.weight.detach(), spec.rank, spec.alpha, generator));
  }
}

bool has_adapters(const ClipModel& model) {
  for (const auto& s : all_sites(model))
    if (*s.slot) return true;
  return false;
}

std::optional<AdapterSpec> adapter_spec(const ClipModel& model) {
  std::optional<AdapterSpec> spec;
  bool image = false, text = false;
  for (const auto& s : all_sites(model)) {
    if (!*s.slot) continue;
    (s.weight_key.rfind("visual.", 0) == 0 ? image : text) = true;
    if (!spec) spec = AdapterSpec{(*s.slot)->kind(), (*s.slot)->rank(), (*s.slot)->alpha(), ""};
  }
  if (spec) spec->towers = image && text ? "both" : image ? "image" : "text";
  return spec;
}

bool is_adapter_parameter(const std::string& name) { return name.find(kAdapterMarker) != std::string::npos; }

void merge_adapters(ClipModel& model) { drop_adapters(model, /*fold=*/true); }

void remove_adapters(ClipModel& model) { drop_adapters(model, /*fold=*/false); }

torch::OrderedDict<std::string, torch::Tensor> merged_state_dict(const ClipModel& model) {
  torch::NoGradGuard no_grad;
  std::map<std::string, torch::Tensor> merged;
  for (const auto& s : all_sites(model)) {
    if (*s.slot) merged[s.weight_key] = (*s.slot)->merged_weight(s.weight.detach());
  }
  torch::OrderedDict<std::string, torch::Tensor> out;
  for (const auto& p : model->named_parameters()) {
    if (is_adapter_parameter(p.key())) continue;
    const auto it = merged.find(p.key());
    out.insert(p.key(), it != merged.end() ? it->second : p.value().detach());
  }
  return out;
}

}  // namespace hnclip

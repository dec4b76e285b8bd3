#pragma once
// OpenAI CLIP's image normalisation (per-channel mean and std of its training images): the one
// the workbench's image pipeline applies (ImagePipelineConfig's defaults in data/, which model/
// cannot include), so model files that declare another are refused (pretrained_file.cpp) and
// exported folders declare this one (hf_clip_folder.cpp).

namespace hnclip {

constexpr double kClipImageMean[3] = {0.48145466, 0.4578275, 0.40821073};
constexpr double kClipImageStd[3] = {0.26862954, 0.26130258, 0.27577711};

}  // namespace hnclip

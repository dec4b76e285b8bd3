#pragma once
// The fine-tuning frameworks the HN margins drop into (--framework): what a batch must carry
// besides image and caption, and which loss terms a step adds. `plain` is HN-CLIP itself (the
// global term alone, with its margins unless --hn off). `longclip` adds Long-CLIP's short-caption
// branch: the short caption is the long one up to its first ". ", matched to the image's
// batch-PCA features (loss/long_clip_loss.h), and restarts the logit scale at 100. `debias` is
// DeBias-CLIP, built on Long-CLIP's code: its augmented caption (train/debias_caption.h) takes
// the short branch's place, matched to the image's own features (loss/debias_clip_loss.h).
// `finelip` trains FineLIP's fine-grained token loss (loss/finelip_loss.h); `goal` adds GOAL's
// crop, patch and span terms over each image's segment (loss/goal_loss.h, data/goal_segments.h)
// and keeps the checkpoint's logit scale, as its code does. `structxlip` adds StructXLIP's edge-map
// terms (loss/structxlip_loss.h): each image's Canny structure map (data/structure_map.h, made
// and cached by the loader) against its caption with the colour / material / texture words
// removed (text/structure_word_list.h), RGB ↔ edge-map consistency, and edge segments (GOAL's
// segments, cut from the edge map) against caption chunks (text/word_chunks.h); it keeps the
// checkpoint's logit scale too.

#include <string>

#include "train/train_config.h"

namespace hnclip {

// Long-CLIP's short caption: the caption up to (not including) its first ". ", else all of it.
std::string long_clip_short_caption(const std::string& caption);

// Whether a step of this framework encodes a second caption per pair derived from the first
// (Long-CLIP's short caption, DeBias-CLIP's augmented one), which the data must tokenize.
bool needs_derived_captions(Framework framework);

// Whether a step of this framework tokenizes new text of its own (derived captions, StructXLIP's
// filtered captions and chunks), which the data must be able to do: checked when the trainer is
// made.
bool tokenizes_new_text(Framework framework);

// Whether its batches carry the images' structure maps (StructXLIP), loaded with the images.
bool needs_structure_maps(Framework framework);

// The starting logit scale the framework's own training code uses, 0 when it keeps the
// checkpoint's (plain).
double framework_start_logit_scale(Framework framework);

}  // namespace hnclip

#pragma once
// BatchSource: delivers scheduled batches in order, loading them ahead of the consumer.
// The trainer decides *what* goes into each batch (seeded order); a BatchSource only decides
// *when* it is loaded. core/data's BatchLoader does it with worker threads.

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>

namespace hnclip {

// What one batch consists of: image indices and caption indices of a PairedData. Either list may
// be empty (evaluation encodes images and captions separately); for training, images[i] and
// captions[i] form pair i.
struct BatchRequest {
  std::vector<int64_t> images;
  std::vector<int64_t> captions;
  // Also load the images' structure maps (StructXLIP), on the loader's threads like the images.
  bool structure_maps = false;
};

struct Batch {
  BatchRequest request;
  at::Tensor images;  // [n, 3, S, S] float32, undefined when request.images is empty
  at::Tensor tokens;  // [n, L] int64, undefined when request.captions is empty
  at::Tensor structure_maps;  // [n, 3, S, S] float32 when request.structure_maps, else undefined
};

class BatchSource {
 public:
  virtual ~BatchSource() = default;
  // Replaces whatever was scheduled before with these requests, to be delivered in this order.
  virtual void schedule(std::vector<BatchRequest> requests) = 0;
  // Blocks until the next scheduled batch is ready; false once the schedule is exhausted.
  // Rethrows (once) an exception a loader thread hit while loading that batch.
  virtual bool next(Batch& out) = 0;
  // Seconds next() spent waiting since construction (to measure whether the step is fed).
  virtual double wait_seconds() const = 0;
};

}  // namespace hnclip

#include "distributed/gradient_reducer.h"

#include <mutex>

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "distributed/process_group.h"

namespace hnclip {

struct GradientReducer::Impl {
  struct Bucket {
    std::vector<size_t> members;    // indices into params
    std::vector<int64_t> offsets;   // where each member sits in `flat`
    std::vector<at::Tensor> io;     // {flat}: what the all-reduce sums in place
    size_t pending = 0;             // members whose gradient has not arrived this backward
    c10::intrusive_ptr<c10d::Work> work;
  };

  Impl(ProcessGroup& g, std::vector<at::Tensor> p) : group(g), params(std::move(p)) {}

  ProcessGroup& group;
  std::vector<at::Tensor> params;
  std::vector<unsigned> hooks;
  std::vector<size_t> bucket_of, slot_of;
  std::vector<bool> arrived;
  std::vector<Bucket> buckets;
  std::mutex mutex;  // the hooks may run on autograd's device thread
  bool armed = false;
  size_t next_to_issue = 0;
  size_t arrived_count = 0;
  int overlapped = 0;

  at::Tensor slot(size_t i) {
    const auto& b = buckets[bucket_of[i]];
    const int64_t at = b.offsets[slot_of[i]];
    return b.io[0].slice(0, at, at + params[i].numel()).view_as(params[i]);
  }

  // Issues the buckets that are complete, in bucket order, stopping at the first that is not.
  void issue_ready() {
    while (next_to_issue < buckets.size() && buckets[next_to_issue].pending == 0) {
      auto& b = buckets[next_to_issue++];
      b.work = group.c10d_group().allreduce(b.io);  // c10d's default op: sum
      if (armed && arrived_count < params.size()) ++overlapped;
    }
  }

  void arrive(size_t i, const at::Tensor& grad) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!armed || arrived[i]) return;
    torch::NoGradGuard no_grad;
    arrived[i] = true;
    ++arrived_count;
    slot(i).copy_(grad);
    if (--buckets[bucket_of[i]].pending == 0) issue_ready();
  }
};

GradientReducer::GradientReducer(ProcessGroup& group, std::vector<at::Tensor> params,
                                 int64_t bucket_bytes, int64_t first_bucket_bytes)
    : impl_(std::make_unique<Impl>(group, std::move(params))) {
  auto& m = *impl_;
  const size_t n = m.params.size();
  m.bucket_of.resize(n);
  m.slot_of.resize(n);
  m.arrived.assign(n, false);
  // Reverse order: autograd reaches the last-registered layers first.
  std::vector<int64_t> sizes;  // each bucket's element count
  int64_t filled = 0;
  for (size_t k = n; k-- > 0;) {
    const auto& p = m.params[k];
    const int64_t bytes = p.numel() * static_cast<int64_t>(p.element_size());
    const int64_t cap = m.buckets.size() == 1 ? first_bucket_bytes : bucket_bytes;
    const bool fits = !m.buckets.empty() && filled + bytes <= cap &&
                      m.params[m.buckets.back().members.front()].scalar_type() == p.scalar_type() &&
                      m.params[m.buckets.back().members.front()].device() == p.device();
    if (!fits) {
      m.buckets.emplace_back();
      sizes.push_back(0);
      filled = 0;
    }
    auto& b = m.buckets.back();
    m.bucket_of[k] = m.buckets.size() - 1;
    m.slot_of[k] = b.members.size();
    b.members.push_back(k);
    b.offsets.push_back(sizes.back());
    sizes.back() += p.numel();
    filled += bytes;
  }
  for (size_t b = 0; b < m.buckets.size(); ++b) {
    const auto& first = m.params[m.buckets[b].members.front()];
    m.buckets[b].io = {torch::empty({sizes[b]}, first.options().requires_grad(false))};
  }
  Impl* impl = impl_.get();
  for (size_t k = 0; k < n; ++k) {
    m.hooks.push_back(
        m.params[k].register_hook([impl, k](const at::Tensor& grad) { impl->arrive(k, grad); }));
  }
}

GradientReducer::~GradientReducer() {
  for (size_t k = 0; k < impl_->hooks.size(); ++k) impl_->params[k].remove_hook(impl_->hooks[k]);
}

void GradientReducer::prepare() {
  auto& m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  m.arrived.assign(m.params.size(), false);
  for (auto& b : m.buckets) {
    b.pending = b.members.size();
    b.work.reset();
  }
  m.next_to_issue = 0;
  m.arrived_count = 0;
  m.overlapped = 0;
  m.armed = true;
}

void GradientReducer::finish() {
  auto& m = *impl_;
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    torch::NoGradGuard no_grad;
    m.armed = false;
    // A gradient no hook saw (a parameter this rank's loss did not reach) takes part as what
    // .grad holds, or zeros.
    for (size_t b = m.next_to_issue; b < m.buckets.size(); ++b) {
      for (size_t k : m.buckets[b].members) {
        if (m.arrived[k]) continue;
        const auto& g = m.params[k].grad();
        if (g.defined()) {
          m.slot(k).copy_(g);
        } else {
          m.slot(k).zero_();
        }
      }
      m.buckets[b].pending = 0;
    }
    m.issue_ready();
  }
  for (auto& b : m.buckets) m.group.wait(b.work, "gradient all-reduce");
  torch::NoGradGuard no_grad;
  for (size_t k = 0; k < m.params.size(); ++k) {
    auto& g = m.params[k].mutable_grad();
    if (g.defined()) {
      g.copy_(m.slot(k));
    } else {
      g = m.slot(k).clone();
    }
  }
}

int GradientReducer::buckets() const { return static_cast<int>(impl_->buckets.size()); }

int GradientReducer::overlapped_buckets() const { return impl_->overlapped; }

}  // namespace hnclip

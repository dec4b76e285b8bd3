// Carries the precompiled <torch/torch.h> that every LibTorch area of the core reuses.
#include <torch/torch.h>

#pragma once
// The softmax layout (docs/design.md, Learners): a K-class learner keeps W ∈ R^{d×K} as one vector of
// d·K numbers, feature-major, W[j, k] at j·K + k. Feature j's K entries sit together on j's owner,
// and the gradient x ⊗ ∂ℓ/∂p has x_j·∂ℓ/∂p_k there (BlockPartition::interleaved(K) splits it).
#include <type_traits>

namespace adasketch {

/// The position of W[j, k] (feature j, class k of K) in the feature-major vector.
template <class Index>
constexpr Index class_entry(Index j, std::type_identity_t<Index> k, std::type_identity_t<Index> K) noexcept {
  return j * K + k;
}

}  // namespace adasketch

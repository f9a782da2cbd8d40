#pragma once
/// @file
/// The options of DiagonalAdaGrad (ada-diag, ada-diag-da).
#include "adasketch/learners/hyperparameters.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/types.hpp"

namespace adasketch {

/// The hyperparameters of DiagonalAdaGrad: the table's rows marked D (hyperparameter_table.h: eta,
/// delta, lambda1, lambda2, scale, with its defaults; δ is added to the diagonal √G and λ₁ > 0 leaves exact
/// zeros in W), and the update.
struct DiagonalAdaGradOptions {
  /// The update: composite mirror descent (ADA-FD paper eq. (2)) or dual averaging (eq. (1)).
  enum class Update {
    mirror_descent,  ///< composite mirror descent (ada-diag)
    dual_averaging   ///< dual averaging with Duchi et al.'s tηφ (ada-diag-da)
  };
  ADASKETCH_OPTIONS_FIELDS(D)
  Update update = Update::mirror_descent;  ///< mirror descent, or dual averaging ("-da")
};

}  // namespace adasketch

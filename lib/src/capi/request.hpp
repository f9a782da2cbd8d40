#pragma once
// A learner as the C interface's create calls describe it: the hyperparameters (LearnerSpec), the
// bias and the caller's labels, from an adasketch_spec or from settings text.
#include <vector>

#include "adasketch/adasketch.h"
#include "adasketch/learners/learner.hpp"
#include "adasketch/training/label_map.hpp"

namespace adasketch::capi {

/// What a create call asks for.
struct LearnerRequest {
  LearnerSpec spec;
  double bias = 0.0;                          ///< B > 0: the constant feature appended to every example
  LabelMap labels{LabelMap::Kind::real};      ///< the caller's labels → the loss's
};

/// From an adasketch_spec. Throws InvalidArgument naming the field.
LearnerRequest request_of(const adasketch_spec* spec);
/// From the algorithm, the loss (NULL: the default) and the blank-separated member=value pairs of
/// `settings` (NULL: none) over the defaults. Throws InvalidArgument naming the member.
LearnerRequest request_of_settings(const char* algorithm, const char* loss, const char* settings);

}  // namespace adasketch::capi

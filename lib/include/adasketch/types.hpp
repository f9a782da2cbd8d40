#pragma once
#include <cstdint>

namespace adasketch {
/// Global feature and example indices (d may exceed 2^31).
using index_t = std::int64_t;
}  // namespace adasketch

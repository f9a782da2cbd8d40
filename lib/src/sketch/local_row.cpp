#include "adasketch/sketch/local_row.hpp"

namespace adasketch {

double LocalRow::local_norm2() const noexcept {
  double s = 0.0;
  for (double v : values_) s += v * v;
  return s;
}

}  // namespace adasketch

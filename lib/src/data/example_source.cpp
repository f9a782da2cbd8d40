#include "adasketch/data/example_source.hpp"

#include <string>

#include "adasketch/error.hpp"

namespace adasketch {

index_t ExampleSource::skip(index_t n) {
  ADASKETCH_REQUIRE(n >= 0, "n = " + number_text(n));
  Example scratch;
  index_t done = 0;
  while (done < n && next(scratch)) ++done;
  return done;
}

}  // namespace adasketch

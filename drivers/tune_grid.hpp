#pragma once
// `adasketch tune`'s grid (the --vary options), its result rows, the choice of the best row and the
// rows' text forms (CSV, JSON report, the lines of the checkpoint file and of the gather).
#include <optional>
#include <string>
#include <vector>

#include "adasketch/types.hpp"
#include "cli_options.hpp"

namespace adasketch::driver {

struct VariedOption {
  std::string name;                 ///< a `train` option, without the dashes
  std::vector<std::string> values;  ///< as passed to `train`
};

/// "NAME=LIST": LIST is `v1,v2,...`, or a log range `LO:HI` (every decade from LO to HI, both > 0
/// and a whole number of decades apart) or `LO:HI:N` (N ≥ 2 log-spaced values from LO to HI), whose
/// values are written with 6 significant digits. InvalidArgument naming `--vary TEXT`.
VariedOption parse_vary(const std::string& text);

/// The cartesian product of the varied options, the first --vary varying slowest.
class Grid {
 public:
  explicit Grid(std::vector<VariedOption> varied);
  index_t size() const noexcept { return size_; }
  const std::vector<VariedOption>& varied() const noexcept { return varied_; }
  /// Configuration i's value of each varied option, in --vary order.
  std::vector<std::string> values(index_t i) const;
  /// "eta=0.1 delta=1e-3"
  std::string describe(index_t i) const;

 private:
  std::vector<VariedOption> varied_;
  index_t size_ = 1;
};

struct TuneRow {
  index_t index = 0;
  bool failed = false;  ///< diverged (NumericError): `message` says how
  std::string message;
  bool classified = false;  ///< online mistakes are meaningful (TrainingStats::classified)
  index_t examples = 0, mistakes = 0;
  double cumulative_loss = 0.0;
  bool tested = false;
  double test_accuracy = 0.0, test_mean_loss = 0.0;  ///< accuracy NaN for regression
  double seconds = 0.0;
};

/// One line, without '\n', that row_from_line() reads back exactly.
std::string row_line(const TuneRow& row);
TuneRow row_from_line(const std::string& line);

enum class Selection { online, test };
Selection parse_selection(const std::string& text);
const char* to_string(Selection s);

/// The position in `rows` of the best row that did not fail, if any. online: fewest online mistakes,
/// then lowest cumulative loss (classification), lowest cumulative loss (regression), as
/// jobs/grid.py's selection_key; test: highest test accuracy, then lowest test mean loss
/// (classification), lowest test mean loss (regression). Ties: the first in grid order.
std::optional<std::size_t> best_row(const std::vector<TuneRow>& rows, Selection select);

/// The CSV (header line, one line per row in grid order; `best` marks the chosen one) and one row's
/// console line.
std::string tune_csv(const Grid& grid, const std::vector<TuneRow>& rows, std::optional<std::size_t> best);
std::string row_summary(const Grid& grid, const TuneRow& row);

/// The JSON report's members after begin_report(): train options, grid, rows, best.
void write_tune_json(JsonWriter& j, const std::vector<std::string>& train_args, const Grid& grid,
                     const std::vector<TuneRow>& rows, std::optional<std::size_t> best);

}  // namespace adasketch::driver

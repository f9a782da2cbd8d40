#include "predictions_file.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "adasketch/error.hpp"
#include "collective_errors.hpp"

namespace adasketch::driver {

namespace {

constexpr std::size_t kFlushBytes = std::size_t{1} << 20;

// Adds x to `partials`, non-overlapping numbers whose sum is exactly the sum of all that was added
// (Shewchuk's algorithm, as Python's math.fsum).
void add_exact(std::vector<double>& partials, double x) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < partials.size(); ++i) {
    double y = partials[i];
    if (std::abs(x) < std::abs(y)) std::swap(x, y);
    const double hi = x + y, lo = y - (hi - x);
    if (lo != 0.0) partials[kept++] = lo;
    x = hi;
  }
  partials.resize(kept);
  partials.push_back(x);
}

// The exact sum of `partials` (as add_exact leaves them) rounded once to nearest, ties to even.
double rounded_sum(const std::vector<double>& partials) {
  std::size_t n = partials.size();
  if (n == 0) return 0.0;
  double hi = partials[--n], lo = 0.0;
  while (n > 0) {
    const double x = hi, y = partials[--n];
    hi = x + y;
    lo = y - (hi - x);
    if (lo != 0.0) break;
  }
  if (n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0))) {
    const double y = 2.0 * lo, x = hi + y;
    if (y == x - hi) hi = x;
  }
  return hi;
}

}  // namespace

PredictionsFile::PredictionsFile(const Communicator& comm, std::string path, std::string option, const Loss& loss,
                                 const LabelMap& labels, std::span<const double> weights)
    : comm_(comm), path_(std::move(path)), option_(std::move(option)), loss_(loss), labels_(labels),
      weights_(weights.begin(), weights.end()), partials_(static_cast<std::size_t>(loss.outputs())),
      scores_(partials_.size()), lengths_(partials_.size()) {
  collective_section(comm_, [&] {
    if (comm_.rank() == 0) output_.emplace(path_, option_);
  });
}

void PredictionsFile::add(const LocalRow& x) {
  const std::size_t k_count = partials_.size(), ranks = static_cast<std::size_t>(comm_.size());
  for (auto& p : partials_) p.clear();
  const auto values = x.values();
  for (std::size_t e = 0; e < values.size(); ++e) {
    const auto j = static_cast<std::size_t>(x.is_dense() ? static_cast<index_t>(e) : x.indices()[e]);
    for (std::size_t k = 0; k < k_count; ++k) add_exact(partials_[k], values[e] * weights_[j * k_count + k]);
  }
  send_.clear();
  for (std::size_t k = 0; k < k_count; ++k) {
    lengths_[k] = static_cast<int>(partials_[k].size());
    send_.insert(send_.end(), partials_[k].begin(), partials_[k].end());
  }
  const bool root = comm_.rank() == 0;
  all_lengths_.resize(root ? ranks * k_count : 0);
  check_mpi(MPI_Gather(lengths_.data(), static_cast<int>(k_count), MPI_INT, all_lengths_.data(),
                       static_cast<int>(k_count), MPI_INT, 0, comm_.get()),
            "MPI_Gather");
  counts_.assign(root ? ranks : 0, 0);
  displacements_.assign(root ? ranks : 0, 0);
  for (std::size_t r = 0; r < counts_.size(); ++r) {
    for (std::size_t k = 0; k < k_count; ++k) counts_[r] += all_lengths_[r * k_count + k];
    if (r > 0) displacements_[r] = displacements_[r - 1] + counts_[r - 1];
  }
  receive_.resize(root ? static_cast<std::size_t>(displacements_.back() + counts_.back()) : 0);
  check_mpi(MPI_Gatherv(send_.data(), static_cast<int>(send_.size()), MPI_DOUBLE, receive_.data(), counts_.data(),
                        displacements_.data(), MPI_DOUBLE, 0, comm_.get()),
            "MPI_Gatherv");
  if (!root) return;
  for (auto& p : partials_) p.clear();
  std::size_t at = 0;
  for (std::size_t r = 0; r < ranks; ++r)
    for (std::size_t k = 0; k < k_count; ++k)
      for (int i = 0; i < all_lengths_[r * k_count + k]; ++i) add_exact(partials_[k], receive_[at++]);
  for (std::size_t k = 0; k < k_count; ++k) scores_[k] = rounded_sum(partials_[k]);
  write_line(scores_);
}

void PredictionsFile::write_line(std::span<const double> scores) {
  if (!output_) return;
  if (!loss_.is_classification()) {
    append_number_text(buffer_, scores[0]);
  } else {
    append_number_text(buffer_, predicted_label(loss_, labels_, scores));
    if (loss_.kind() != LossKind::softmax) {
      buffer_ += ' ';
      append_number_text(buffer_, scores[0]);
    } else {  // softmax probabilities, shifted by the largest score (no overflow)
      const double top = *std::max_element(scores.begin(), scores.end());
      double sum = 0.0;
      for (double s : scores) sum += std::exp(s - top);
      for (double s : scores) {
        buffer_ += ' ';
        append_number_text(buffer_, std::exp(s - top) / sum);
      }
    }
  }
  buffer_ += '\n';
  if (buffer_.size() >= kFlushBytes) flush();
}

void PredictionsFile::flush() {
  if (failure_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), output_->stream()) != buffer_.size())
    failure_ = option_ + ": error writing '" + output_->temp_path() + "'";
  buffer_.clear();
}

void PredictionsFile::finish() {
  collective_section(comm_, [&] {
    if (!output_) return;
    flush();
    if (!failure_.empty()) throw Error(failure_);  // the temporary file goes with output_
    output_->commit();
    output_.reset();
  });
}

}  // namespace adasketch::driver

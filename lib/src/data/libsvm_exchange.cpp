#include "libsvm_exchange.hpp"

#include <algorithm>
#include <bit>
#include <new>

#include "adasketch/number_text.hpp"

namespace adasketch::detail {

namespace {
constexpr std::size_t kHeaderWords = 1 + RoundStatus::kWords;
}  // namespace

EntryExchange::EntryExchange(const Communicator& comm, const BlockPartition& partition)
    : comm_(comm), partition_(partition), source_(comm.size()) {
  const auto ranks = static_cast<std::size_t>(comm.size());
  send_counts_.resize(ranks);
  receive_counts_.resize(ranks);
  next_word_.resize(ranks);
  headers_out_.resize(ranks * kHeaderWords);
  headers_in_.resize(ranks * kHeaderWords);
  statuses_.resize(ranks);
}

void EntryExchange::pack(const ParsedExamples& mine) {
  const int ranks = comm_.size(), self = comm_.rank();
  if (ranks == 1) return;  // nothing to send
  // The features of an example for rank q are a run of its ascending indices, below partition_.end(q).
  const auto for_each_run = [&](auto&& emit) {
    for (index_t e = 0; e < mine.size(); ++e) {
      index_t k = mine.begin_of(e);
      const index_t end = mine.ends[static_cast<std::size_t>(e)];
      for (int q = 0; q < ranks; ++q) {
        const index_t stop = partition_.end(q);
        index_t j = k;
        while (j < end && mine.indices[static_cast<std::size_t>(j)] < stop) ++j;
        if (q != self) emit(e, q, k, j);
        k = j;
      }
    }
  };
  for_each_run([&](index_t, int q, index_t k, index_t j) { send_counts_[static_cast<std::size_t>(q)] += 3 + 2 * (j - k); });
  index_t total = 0;
  for (std::size_t q = 0; q < send_counts_.size(); ++q) {
    next_word_[q] = total;
    total += send_counts_[q];
  }
  send_.resize(static_cast<std::size_t>(total));
  for_each_run([&](index_t e, int q, index_t k, index_t j) {
    index_t& at = next_word_[static_cast<std::size_t>(q)];
    index_t* w = send_.data() + at;
    const auto example = static_cast<std::size_t>(e);
    w[0] = std::bit_cast<index_t>(mine.labels[example]);
    w[1] = mine.lines[example];
    w[2] = j - k;
    const index_t begin = partition_.begin(q);
    for (index_t m = k; m < j; ++m, w += 2) {
      w[3] = mine.indices[static_cast<std::size_t>(m)] - begin;
      w[4] = std::bit_cast<index_t>(mine.values[static_cast<std::size_t>(m)]);
    }
    at += 3 + 2 * (j - k);
  });
}

void EntryExchange::exchange(const ParsedExamples& mine, const RoundStatus& status, const std::string& reason,
                             index_t first_line, const std::string& path) {
  RoundStatus sent = status;
  std::string why = reason;
  std::fill(send_counts_.begin(), send_counts_.end(), 0);
  if (sent.failure == RoundStatus::none) {
    try {
      pack(mine);
    } catch (const std::bad_alloc&) {
      std::fill(send_counts_.begin(), send_counts_.end(), 0);
      sent = RoundStatus{sent.lines, sent.examples, RoundStatus::at_line, 0};
      why = "not enough memory to send " + number_text(mine.size()) + " examples to their features' ranks";
    }
  }
  const auto ranks = static_cast<std::size_t>(comm_.size());
  for (std::size_t q = 0; q < ranks; ++q) {
    headers_out_[q * kHeaderWords] = send_counts_[q];
    sent.write(headers_out_.data() + q * kHeaderWords + 1);
  }
  comm_.alltoall(headers_out_, headers_in_);
  index_t words = 0;
  for (std::size_t s = 0; s < ranks; ++s) {
    receive_counts_[s] = headers_in_[s * kHeaderWords];
    statuses_[s] = RoundStatus::read(headers_in_.data() + s * kHeaderWords + 1);
    words += receive_counts_[s];
  }
  if (const auto failure = first_failure(statuses_, first_line)) throw_agreed(comm_, path, *failure, why);
  receive_.resize(static_cast<std::size_t>(words));
  comm_.alltoallv(send_, send_counts_, receive_, receive_counts_);
  mine_ = &mine;
  source_ = -1;
  left_ = 0;
  cursor_ = 0;
}

bool EntryExchange::next_source() {
  while (left_ == 0) {
    if (source_ >= comm_.size() - 1) {
      source_ = comm_.size();
      return false;
    }
    left_ = statuses_[static_cast<std::size_t>(++source_)].examples;
    example_ = 0;
  }
  return true;
}

bool EntryExchange::next(Example& out) {
  if (!next_source()) return false;
  --left_;
  out.dense = false;
  if (source_ == comm_.rank()) {  // from this rank's block: the run of its features
    const auto e = static_cast<std::size_t>(example_++);
    const index_t begin = partition_.begin(source_);
    const auto first = mine_->indices.begin() + mine_->begin_of(static_cast<index_t>(e));
    const auto last = mine_->indices.begin() + mine_->ends[e];
    const auto from = std::lower_bound(first, last, begin), to = std::lower_bound(from, last, partition_.end(source_));
    out.label = mine_->labels[e];
    out.position = mine_->lines[e];
    out.indices.resize(static_cast<std::size_t>(to - from));
    out.values.resize(out.indices.size());
    const auto values = mine_->values.begin() + (from - mine_->indices.begin());
    for (std::size_t k = 0; k < out.indices.size(); ++k) {
      out.indices[k] = from[static_cast<std::ptrdiff_t>(k)] - begin;
      out.values[k] = values[static_cast<std::ptrdiff_t>(k)];
    }
    return true;
  }
  const index_t* w = receive_.data() + cursor_;
  const auto count = static_cast<std::size_t>(w[2]);
  out.label = std::bit_cast<double>(w[0]);
  out.position = w[1];
  out.indices.resize(count);
  out.values.resize(count);
  for (std::size_t k = 0; k < count; ++k) {
    out.indices[k] = w[3 + 2 * k];
    out.values[k] = std::bit_cast<double>(w[4 + 2 * k]);
  }
  cursor_ += 3 + 2 * count;
  return true;
}

index_t EntryExchange::skip(index_t n) {
  index_t done = 0;
  for (; done < n && next_source(); ++done, --left_) {
    if (source_ == comm_.rank()) ++example_;
    else cursor_ += 3 + 2 * static_cast<std::size_t>(receive_[cursor_ + 2]);
  }
  return done;
}

}  // namespace adasketch::detail

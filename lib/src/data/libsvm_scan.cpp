#include "libsvm_scan.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <new>
#include <set>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/training/label_map.hpp"
#include "libsvm_rounds.hpp"

namespace adasketch::detail {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// This rank's part of DatasetInfo (labels: +inf/−inf while it has no example).
struct Summary {
  index_t nnz = 0, max_index = 0;
  double label_min = std::numeric_limits<double>::infinity(), label_max = -std::numeric_limits<double>::infinity();
  bool integral = true;
  std::set<double> labels;  // distinct, up to LabelMap::kMaxValues + 1

  void add(const ParsedExamples& parsed) {
    for (index_t e = 0; e < parsed.size(); ++e) {
      const auto i = static_cast<std::size_t>(e);
      const double label = parsed.labels[i];
      if (labels.size() <= LabelMap::kMaxValues) labels.insert(label);
      label_min = std::min(label_min, label);
      label_max = std::max(label_max, label);
      integral = integral && label == std::floor(label);
      const index_t begin = parsed.begin_of(e), end = parsed.ends[i];
      nnz += end - begin;
      if (end > begin) max_index = std::max(max_index, parsed.indices[static_cast<std::size_t>(end - 1)] + 1);
    }
  }
};

}  // namespace

ScanResult scan_text(const Communicator& comm, TextSource& text, const std::string& path, index_t dim,
                     index_t cache_bytes, ParseStats& stats) {
  ScanResult result;
  RoundIndex& index = result.index;
  bool caching = cache_bytes > 0;
  std::size_t cached_bytes = 0;
  ParsedExamples parsed;  // one round's block
  Summary summary;
  const auto ranks = static_cast<std::size_t>(comm.size());
  std::vector<index_t> mine(RoundStatus::kWords), all(ranks * RoundStatus::kWords);
  std::vector<RoundStatus> statuses(ranks);
  index_t first_line = 1, examples = 0;
  LineBlock block;
  for (;;) {
    auto start = Clock::now();
    const bool more = text.next(block);
    stats.read_seconds += seconds_since(start);
    if (!more) break;
    start = Clock::now();
    parsed.clear();
    std::string reason;
    const RoundStatus status = parse_block(block, dim, parsed, reason);
    if (status.failure == RoundStatus::none) summary.add(parsed);
    stats.parse_seconds += seconds_since(start);
    stats.bytes += static_cast<index_t>(block.text.size());
    stats.examples += status.examples;

    start = Clock::now();
    status.write(mine.data());
    comm.allgather(mine, all);
    for (std::size_t r = 0; r < ranks; ++r) statuses[r] = RoundStatus::read(all.data() + r * RoundStatus::kWords);
    if (const auto failure = first_failure(statuses, first_line)) throw_agreed(comm, path, *failure, reason);
    index_t my_first_line = first_line, round_lines = 0, round_examples = 0;
    for (std::size_t r = 0; r < ranks; ++r) {
      if (r < static_cast<std::size_t>(comm.rank())) my_first_line += statuses[r].lines;
      round_lines += statuses[r].lines;
      round_examples += statuses[r].examples;
    }
    stats.exchange_seconds += seconds_since(start);

    index.first_line.push_back(first_line);
    index.first_example.push_back(examples);
    index.my_first_line.push_back(my_first_line);
    index.my_lines.push_back(status.lines);
    index.my_examples.push_back(status.examples);
    index.my_bytes.push_back(static_cast<index_t>(block.text.size()));
    first_line += round_lines;
    examples += round_examples;
    if (caching) {  // exact sizes: no spare capacity, no copies as the cache grows
      start = Clock::now();
      for (index_t& line : parsed.lines) line += my_first_line - 1;
      try {
        result.cache.push_back(parsed.compact());
        cached_bytes += result.cache.back().bytes();
      } catch (const std::bad_alloc&) {
        cached_bytes = std::numeric_limits<std::size_t>::max();
      }
      if (cached_bytes > static_cast<std::size_t>(cache_bytes)) {  // over budget: parse again on every pass
        caching = false;
        result.cache = {};
      }
      stats.parse_seconds += seconds_since(start);
    }
  }
  index.first_line.push_back(first_line);
  index.first_example.push_back(examples);

  DatasetInfo& info = result.info;
  info.rows = examples;
  info.nnz = comm.allreduce_sum(summary.nnz);
  info.max_index = comm.allreduce_max(summary.max_index);
  info.label_min = comm.allreduce_min(summary.label_min);
  info.label_max = comm.allreduce_max(summary.label_max);
  info.labels_integral = comm.allreduce_min(static_cast<index_t>(summary.integral ? 1 : 0)) != 0;
  info.labels = agree_label_values(comm, std::vector<double>(summary.labels.begin(), summary.labels.end()));
  if (info.rows == 0) throw InputError(path, 0, "no examples (empty file)");
  if (dim == 0 && info.max_index == 0) throw InputError(path, 0, "no feature indices: give the dimension explicitly");
  result.cached = comm.allreduce_min(static_cast<index_t>(caching ? 1 : 0)) != 0;
  if (!result.cached) result.cache = {};
  return result;
}

}  // namespace adasketch::detail

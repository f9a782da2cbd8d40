#pragma once
// Test hook for the collective error protocol (collective_errors.hpp): ADASKETCH_TEST_FAIL_ON_RANK
// makes one chosen rank fail, so the tests can check that the whole job ends, with one message,
// instead of hanging.
//
//   ADASKETCH_TEST_FAIL_ON_RANK=R            rank R throws before the command runs;
//   ADASKETCH_TEST_FAIL_ON_RANK=R:N[:KIND]   rank R fails when the training loop asks for its N-th
//                                            example (1-based, counted over passes), with KIND:
//     error   an adasketch::Error (the default)      alloc  std::bad_alloc
//     lapack  an adasketch::LapackError              nan    no exception: rank R's values of that
//             example become NaN (every rank then sees a non-finite score and fails together).
#include <functional>
#include <string>

#include "adasketch/data/example_source.hpp"

namespace adasketch::driver {

struct InjectedFault {
  int rank = -1;            ///< −1: none
  index_t example = 0;      ///< 0: before the command
  std::string kind = "error";
};

/// The fault the environment asks for. Throws InvalidArgument for a malformed value.
InjectedFault requested_fault();

/// The test hooks of one `train` run, read from the environment where the command starts (so the
/// run itself reads none): the injected fault, and ADASKETCH_TEST_CRASH_BEFORE_RENAME=K, which kills
/// every rank with SIGKILL during the K-th checkpoint save of the run, after FILE.tmp is complete
/// and before it replaces FILE (empty unless the variable is set).
struct TrainTestHooks {
  InjectedFault fault;
  std::function<void()> before_checkpoint_rename;
};
TrainTestHooks train_test_hooks();

/// Throws the fault's exception (kinds error, alloc, lapack), naming where it was injected.
[[noreturn]] void throw_injected(const InjectedFault& fault, const std::string& where);

/// Passes the examples of `inner` through, and injects `fault` at its example on its rank.
class FaultInjectingSource final : public ExampleSource {
 public:
  FaultInjectingSource(ExampleSource& inner, InjectedFault fault) : inner_(inner), fault_(std::move(fault)) {}
  index_t dim() const override { return inner_.dim(); }
  const BlockPartition& partition() const override { return inner_.partition(); }
  bool next(Example& out) override;
  void rewind() override { inner_.rewind(); }
  index_t skip(index_t n) override;  // a resumed run: the skipped examples count

 private:
  ExampleSource& inner_;
  InjectedFault fault_;
  index_t served_ = 0;
};

}  // namespace adasketch::driver

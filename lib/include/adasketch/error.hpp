#pragma once
/// @file
/// Typed exceptions. Every error carries its context in what(): the failed condition or the
/// MPI/LAPACK routine and its code, or the file and line of bad input.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "adasketch/number_text.hpp"  // the numbers of validation messages

namespace adasketch {

/// Base of every exception adasketch throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A function argument or command-line option violates its documented condition.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// Bad input data: names the file and, for text formats, the 1-based line.
class InputError : public Error {
 public:
  /// what() is "FILE:LINE: WHAT", or "FILE: WHAT" when line is 0.
  InputError(const std::string& file, std::int64_t line, const std::string& what);
  /// The file (or data name) as given.
  const std::string& file() const noexcept { return file_; }
  std::int64_t line() const noexcept { return line_; }  ///< 0 when no line applies

 private:
  std::string file_;
  std::int64_t line_;
};

/// An MPI call returned an error code.
class MpiError : public Error {
 public:
  /// what() is "CALL failed with MPI error code CODE" (check_mpi puts MPI's error string in CALL).
  MpiError(const std::string& call, int code);
  /// The MPI error code.
  int code() const noexcept { return code_; }

 private:
  int code_;
};

/// A LAPACK or ScaLAPACK routine returned info != 0.
class LapackError : public Error {
 public:
  /// what() is "ROUTINE failed with info = INFO".
  LapackError(const std::string& routine, long long info);
  /// The routine's info.
  long long info() const noexcept { return info_; }

 private:
  long long info_;
};

/// A computation produced a value outside its domain (NaN, Inf, a non-positive pivot).
class NumericError : public Error {
 public:
  using Error::Error;
};

/// A learner's mean loss over a window of examples passed its divergence limit (LearnerSpec::divergence;
/// docs/design.md §2, "Divergence"): the model diverged while its values stayed finite. Learner::step
/// throws it on every rank together; what() names the learner, the window, the losses and what to change.
class LossDivergenceError : public NumericError {
 public:
  /// what() is `what`; `example` is the step that ended the window.
  LossDivergenceError(const std::string& what, std::int64_t example) : NumericError(what), example_(example) {}
  /// The step (1-based, counted over every pass) that ended the window.
  std::int64_t example() const noexcept { return example_; }

 private:
  std::int64_t example_;
};

namespace detail {
[[noreturn]] void throw_invalid_argument(const char* function, const char* condition,
                                         const std::string& detail);
}  // namespace detail

}  // namespace adasketch

/// Checks an argument condition; on failure throws InvalidArgument naming the function and the
/// condition, e.g. "FrequentDirections: condition 'ell >= 1' failed (ell = 0)". Numbers in
/// detail_text are written with number_text (shortest round-trip form).
#define ADASKETCH_REQUIRE(cond, detail_text)                                        \
  do {                                                                              \
    if (!(cond)) ::adasketch::detail::throw_invalid_argument(__func__, #cond, (detail_text)); \
  } while (0)

#pragma once
// One exception hierarchy for the analyzer and the tools. Each error carries
// the exit status the command ends with; messages are written for the user,
// naming the input that was wrong. The measurement library never throws.

#include <stdexcept>
#include <string>

namespace orrery {

/// Exit statuses shared by every Orrery command (docs/design.md §6).
enum ExitStatus : int {
  kExitOk = 0,
  kExitBadInput = 1,  ///< a file or trace that cannot be used
  kExitBadUsage = 2,  ///< a command line that cannot be understood
};

/// Base of all errors an Orrery command reports to its user.
class Error : public std::runtime_error {
 public:
  Error(const std::string& message, int exit_status)
      : std::runtime_error(message), exit_status_(exit_status) {}
  [[nodiscard]] int exit_status() const noexcept { return exit_status_; }

 private:
  int exit_status_;
};

/// Bad input: a missing, corrupt or incompatible file or trace (exit 1).
class InputError : public Error {
 public:
  explicit InputError(const std::string& message) : Error(message, kExitBadInput) {}
};

/// Bad usage: options that cannot be understood or do not fit together (exit 2).
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& message) : Error(message, kExitBadUsage) {}
};

}  // namespace orrery

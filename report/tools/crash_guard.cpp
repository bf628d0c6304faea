#include "crash_guard.h"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace orrery::report::tools {
namespace {

// Prepared outside the handler, which may only call async-signal-safe functions.
char command_name[128] = "orrery";
char reports[3072] = "";
char message[4096] = "";
std::size_t message_length = 0;
// Room to run the handler even when the crash is a stack overflow.
alignas(16) char handler_stack[64 * 1024];

void compose_message() {
  const int length = std::snprintf(
      message, sizeof message,
      "%s: %s: cannot read the report: it is corrupt (the HDF5 library failed on it)\n",
      command_name, reports[0] != '\0' ? reports : "input");
  message_length = length < 0 ? 0 : std::min(static_cast<std::size_t>(length), sizeof message - 1);
}

extern "C" void on_fatal_signal(int) {
  if (message_length > 0) {
    const ssize_t written = write(STDERR_FILENO, message, message_length);
    (void)written;
  }
  _exit(1);
}

}  // namespace

void install_crash_guard(const std::string& command) {
  std::snprintf(command_name, sizeof command_name, "%s", command.c_str());
  compose_message();
  stack_t stack{};
  stack.ss_sp = handler_stack;
  stack.ss_size = sizeof handler_stack;
  sigaltstack(&stack, nullptr);
  struct sigaction action {};
  action.sa_handler = on_fatal_signal;
  action.sa_flags = SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (const int signal_number : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL}) {
    sigaction(signal_number, &action, nullptr);
  }
}

void note_report(const std::string& path) {
  const std::size_t used = std::strlen(reports);
  std::snprintf(reports + used, sizeof reports - used, "%s%s", used > 0 ? ", " : "",
                path.c_str());
  compose_message();
}

std::string noted_reports() { return reports; }

}  // namespace orrery::report::tools

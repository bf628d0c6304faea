// fork/exec rather than posix_spawn so that an exec failure is reported
// through a close-on-exec pipe with its errno, and signals can be forwarded
// to a known pid.

#include "child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

extern char** environ;

namespace orrery::measure {
namespace {

volatile sig_atomic_t g_child_pid = 0;
volatile sig_atomic_t g_received_signal = 0;

/// Signals typed at the terminal already reach the whole foreground process
/// group, child included; only signals sent to the launcher alone (kill,
/// timeout, a batch system) are passed on, so the child never gets one twice.
void forward_signal(int signal_number, siginfo_t* info, void* /*context*/) {
  const bool from_terminal = info != nullptr && info->si_code == SI_KERNEL;
  g_received_signal = signal_number;
  if (g_child_pid > 0 && !from_terminal) kill(static_cast<pid_t>(g_child_pid), signal_number);
}

/// Installs the forwarding handlers for the life of the object.
class SignalForwarding {
 public:
  SignalForwarding() {
    struct sigaction action {};
    action.sa_sigaction = forward_signal;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~SignalForwarding() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
    g_child_pid = 0;
    g_received_signal = 0;
  }
  SignalForwarding(const SignalForwarding&) = delete;
  SignalForwarding& operator=(const SignalForwarding&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

std::vector<std::string> build_environment(const EnvironmentOverrides& overrides) {
  std::map<std::string, std::string> variables;
  std::vector<std::string> order;
  for (char** entry = environ; entry && *entry; ++entry) {
    const std::string text = *entry;
    const auto equals = text.find('=');
    const std::string name = text.substr(0, equals);
    if (!variables.contains(name)) order.push_back(name);
    variables[name] = equals == std::string::npos ? "" : text.substr(equals + 1);
  }
  for (const auto& [name, value] : overrides) {
    if (!variables.contains(name)) order.push_back(name);
    std::string& current = variables[name];
    if (name == "LD_PRELOAD" && !current.empty()) {
      current += ":" + value;
    } else {
      current = value;
    }
  }
  std::vector<std::string> result;
  result.reserve(order.size());
  for (const auto& name : order) result.push_back(name + "=" + variables[name]);
  return result;
}

std::vector<char*> pointers_to(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (auto& text : strings) pointers.push_back(text.data());
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace

ChildExit run_child(const std::vector<std::string>& argv, const EnvironmentOverrides& overrides) {
  ChildExit result;
  std::vector<std::string> arguments = argv;
  std::vector<std::string> environment = build_environment(overrides);
  std::vector<char*> arg_pointers = pointers_to(arguments);
  std::vector<char*> env_pointers = pointers_to(environment);

  int exec_error_pipe[2];
  if (pipe2(exec_error_pipe, O_CLOEXEC) != 0) {
    result.error = std::string("cannot create a pipe: ") + std::strerror(errno);
    return result;
  }
  SignalForwarding forwarding;
  const pid_t pid = fork();
  if (pid < 0) {
    result.error = std::string("cannot fork: ") + std::strerror(errno);
    close(exec_error_pipe[0]);
    close(exec_error_pipe[1]);
    return result;
  }
  if (pid == 0) {
    close(exec_error_pipe[0]);
    environ = env_pointers.data();
    execvp(arg_pointers[0], arg_pointers.data());
    const int error = errno;
    [[maybe_unused]] auto written = write(exec_error_pipe[1], &error, sizeof error);
    _exit(127);
  }
  g_child_pid = pid;
  close(exec_error_pipe[1]);
  int exec_errno = 0;
  ssize_t got;
  do {
    got = read(exec_error_pipe[0], &exec_errno, sizeof exec_errno);
  } while (got < 0 && errno == EINTR);
  close(exec_error_pipe[0]);

  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (got == static_cast<ssize_t>(sizeof exec_errno)) {
    result.error = "cannot run '" + argv[0] + "': " + std::strerror(exec_errno);
    result.exit_status = exec_errno == ENOENT ? 127 : 126;
    return result;
  }
  result.started = true;
  result.interrupted_by = g_received_signal;
  if (WIFEXITED(status)) {
    result.exit_status = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.exit_status = 128 + result.signal;
  }
  return result;
}

}  // namespace orrery::measure

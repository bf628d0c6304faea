// The emergency path's triggers: an atexit hook (exit() or return from main
// without MPI_Finalize) and SIGTERM/SIGINT handlers (mpirun forwards both).
// Each calls emergency_stop(), which is a no-op once the measurement stopped.

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>

#include "measurement.h"

namespace orrery::measure {
namespace {

constexpr int kSignals[] = {SIGTERM, SIGINT};
constexpr unsigned kWatchdogSeconds = 20;

struct SavedHandler {
  struct sigaction previous {};
  bool installed = false;
};
SavedHandler g_saved[sizeof kSignals / sizeof kSignals[0]];
std::atomic<bool> g_stopping{false};
bool g_atexit_registered = false;

void at_exit() {
  // mpirun sends SIGTERM to the other ranks once one exits without finalizing;
  // a signal arriving while this writes must not cut it short (see on_signal).
  if (!g_stopping.exchange(true)) emergency_stop("exit without MPI_Finalize", 0);
}

// Writing the trace is not async-signal-safe (it allocates and does file I/O);
// if the signal interrupted the allocator and that deadlocks, the SIGALRM
// watchdog ends the process the way the signal would have.
void on_signal(int signal_number) {
  // Already writing (exit path, or this handler on another thread): the
  // process ends when that is done; dying now would cut the trace short.
  if (g_stopping.exchange(true)) return;
  ::signal(SIGALRM, SIG_DFL);
  ::alarm(kWatchdogSeconds);
  emergency_stop(signal_number == SIGINT ? "SIGINT" : "SIGTERM", signal_number);
  ::alarm(0);
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);  // die of the signal, as without the library
}

}  // namespace

void install_exit_guard() noexcept {
  if (!g_atexit_registered) g_atexit_registered = std::atexit(at_exit) == 0;
  for (std::size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i) {
    struct sigaction current {};
    if (::sigaction(kSignals[i], nullptr, &current) != 0) continue;
    // Leave a program's (or the MPI library's) own handler alone.
    if (current.sa_handler != SIG_DFL || (current.sa_flags & SA_SIGINFO) != 0) continue;
    struct sigaction ours {};
    ours.sa_handler = on_signal;
    sigemptyset(&ours.sa_mask);
    for (int other : kSignals) sigaddset(&ours.sa_mask, other);
    if (::sigaction(kSignals[i], &ours, &g_saved[i].previous) == 0) g_saved[i].installed = true;
  }
}

void remove_exit_guard() noexcept {
  for (std::size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i) {
    if (!g_saved[i].installed) continue;
    ::sigaction(kSignals[i], &g_saved[i].previous, nullptr);
    g_saved[i].installed = false;
  }
}

}  // namespace orrery::measure

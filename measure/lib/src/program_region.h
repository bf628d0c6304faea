#pragma once
// The program root region and recording before MPI_Init.
//
// Every rank's events are nested in one region named after the executable,
// entered when the library was loaded and left at the end of MPI_Finalize's
// recording. Compiler and user regions are recorded from the library's load
// on the thread that loaded it (so `main` is inside the root), into the same
// buffer; the buffer is allocated on the first such event. A process that
// never calls MPI_Init writes nothing: its events are discarded at exit.

#include <string>

namespace orrery::measure {

/// Slow path of the compiler/user hooks while nothing records yet: starts
/// recording before MPI_Init if this is the loading thread and the process may
/// still be measured. True if the caller may record now.
bool start_early_recording() noexcept;

/// Sets up the recording state (buffer, flush and root regions, filter, mode)
/// unless events are already being recorded, and enters the root region at the
/// library's load time. An empty `spill_path` spills to an anonymous file in
/// TMPDIR. Throws on allocation failure.
void prepare_recording(const std::string& spill_path);

/// At MPI_Init on the thread that calls it: makes it the recording thread.
/// Events recorded before on another thread are dropped (their nesting would
/// not be this thread's); returns false then.
bool claim_recording_thread() noexcept;

/// Forgets everything recorded (a rank that is not measured, or a failure).
void discard_recording() noexcept;

/// The filter file could not be read when recording started ("" if fine).
const std::string& early_filter_error() noexcept;

/// Basename of the executable (/proc/self/exe).
std::string executable_name();

}  // namespace orrery::measure

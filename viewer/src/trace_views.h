#pragma once
// Views computed over all ranks of the trace for a time window: utilization
// (how many processes compute, are in MPI or in the measurement at each
// moment), the concurrency profile, and the communication matrix with its
// message-size histogram. Every rank's trace is visited once per request
// (through the TimelineSource's cache).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "timeline_data.h"

namespace orrery::viewer {

/// Utilization over [t0, t1] in `bins` equal bins: per kind (compute, mpi,
/// measurement), the mean number of ranks in it during each bin; and the
/// concurrency profile: per kind, the time during which exactly k ranks were in it.
nlohmann::json utilization(TimelineSource& source, double t0, double t1, std::size_t bins);

/// Sender × receiver over the messages sent in [t0, t1] (at the send call's
/// enter) from calls inside the call path's subtree (`chain`, a trace_chain;
/// empty: all): bytes, messages and the Late Sender time each sender caused
/// its receiver (waits of receiving calls whose latest sender it was, their
/// enter in the window); and a histogram of message sizes (powers of two).
nlohmann::json communication(TimelineSource& source, double t0, double t1,
                             const std::vector<std::string>& chain);

}  // namespace orrery::viewer

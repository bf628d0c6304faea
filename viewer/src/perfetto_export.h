#pragma once
// `orrery export EXP --format perfetto [--from T] [--to T] [-o OUT.json]`:
// the trace (or a time window of it) as Chrome trace-event JSON, which
// ui.perfetto.dev and chrome://tracing open (docs/viewer.md, "Perfetto export").

#include <cstdint>
#include <ostream>
#include <string>

#include "timeline_data.h"

namespace orrery::viewer {

/// What the export wrote, per kind of event (for the summary line and tests).
struct PerfettoCounts {
  uint64_t slices = 0;  ///< complete events ("X"): region instances
  uint64_t flows = 0;   ///< messages drawn as a flow ("s" on the sender, "f" on the receiver)
};

/// Writes every rank of `source` between `from` and `to` (seconds from the
/// trace's start): one process per rank, one track per thread, region
/// instances as complete events clipped to the window, matched messages whose
/// both ends lie in the window as flow events.
PerfettoCounts write_perfetto(TimelineSource& source, double from, double to, std::ostream& out);

}  // namespace orrery::viewer

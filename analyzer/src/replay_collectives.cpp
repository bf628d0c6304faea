// Collective replay: every collective instance is re-enacted over its own
// communicator with one MPI_Iallgather of (start enter, completion exit), so
// each participant sees everyone's times and the patterns compute their
// formulas locally. Instances are posted in start order (the order MPI
// requires on a communicator) and completed in batches; the order argument
// of the traced run guarantees that no batch waits on an instance that some
// member has not yet posted.

#include <vector>

#include "orrery/analyzer/replay.h"
#include "orrery/analyzer/replay_events.h"

namespace orrery::analyzer {
namespace {

constexpr std::size_t kBatch = 256;

/// One posted collective exchange.
struct Pending {
  uint32_t op = 0;
  int size = 1;
  int my_rank = 0;
  int64_t local[2] = {0, 0};
  std::vector<int64_t> gathered;
  MPI_Request request = MPI_REQUEST_NULL;
};

}  // namespace

void replay_collectives(const LocalTrace& trace, const Communicators& comms, const EventBus& bus,
                        ReplayStatistics& statistics) {
  std::vector<Pending> batch;
  batch.reserve(kBatch);
  std::vector<int64_t> enters, exits;

  auto publish_batch = [&] {
    std::vector<MPI_Request> requests;
    for (Pending& p : batch) requests.push_back(p.request);
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    for (const Pending& p : batch) {
      const CollectiveOp& op = trace.collectives[p.op];
      enters.assign(static_cast<std::size_t>(p.size), 0);
      exits.assign(static_cast<std::size_t>(p.size), 0);
      for (int r = 0; r < p.size; ++r) {
        const auto ru = static_cast<std::size_t>(r);
        enters[ru] = p.size == 1 ? p.local[0] : p.gathered[2 * ru];
        exits[ru] = p.size == 1 ? p.local[1] : p.gathered[2 * ru + 1];
      }
      const Event& call_enter = trace.events[op.complete_call];
      CollectiveCompleted event;
      event.kind = op.kind;
      event.call = CallContext{call_enter.ref, call_enter.time, trace.exit_time(op.complete_call)};
      event.start_enter = p.local[0];
      event.my_rank = static_cast<uint32_t>(p.my_rank);
      event.root = op.root;
      event.enters = enters;
      event.exits = exits;
      event.bytes_sent = op.bytes_sent;
      event.bytes_received = op.bytes_received;
      event.nonblocking = op.nonblocking;
      bus.publish(event);
      ++statistics.collectives;
    }
    batch.clear();
  };

  for (std::size_t index = 0; index < trace.collectives.size(); ++index) {
    const CollectiveOp& op = trace.collectives[index];
    if (op.complete_call == kNone || op.start_call == kNone) continue;
    Pending p;
    p.op = static_cast<uint32_t>(index);
    p.local[0] = trace.enter_time(op.start_call);
    p.local[1] = trace.exit_time(op.complete_call);
    const MPI_Comm comm = comms.get(op.comm);
    // Communicator management and the like carry no wait-state pattern; they
    // are counted without an exchange (the same decision on every member).
    if (op.kind != CollectiveKind::kOther && comm != MPI_COMM_NULL) {
      MPI_Comm_size(comm, &p.size);
      MPI_Comm_rank(comm, &p.my_rank);
    }
    batch.push_back(std::move(p));
    if (batch.back().size > 1) {
      Pending& posted = batch.back();
      posted.gathered.resize(2 * static_cast<std::size_t>(posted.size));
      MPI_Iallgather(posted.local, 2, MPI_INT64_T, posted.gathered.data(), 2, MPI_INT64_T, comm,
                     &posted.request);
    }
    if (batch.size() == kBatch) publish_batch();
  }
  publish_batch();
}

}  // namespace orrery::analyzer

#pragma once
// The block layer behind vmpi.h: several traced ranks in one analysis
// process, one thread each. Messages between traced ranks go through one
// mailbox per traced rank: directly when both live in this process, through
// the process's transport thread (block_host.h) and MPI otherwise. The order
// between two traced ranks is kept (one queue per pair end to end), so MPI's
// non-overtaking rule holds for the replays.

#include <mpi.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "vmpi.h"

namespace orrery::vmpi::block {

/// One message between traced ranks. Collective traffic travels in a
/// context of its own (`context` odd), point to point in the even one.
struct Message {
  uint64_t context = 0;
  int source = 0;        ///< the sender's rank in the communicator
  int64_t tag = 0;       ///< the MPI tag, or the collective's sequence number
  uint32_t sender = 0;   ///< the sender's traced rank
  uint64_t sync = 0;     ///< nonzero: the sender's synchronous-send request, to acknowledge
  std::vector<char> data;
};

/// A traced rank's incoming messages, in arrival order.
struct Mailbox {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Message> queue;
  uint64_t version = 0;  ///< counts deliveries and acknowledgements (under `mutex`)

  void deliver(Message message);
  void touch();  ///< wakes the owner (an acknowledgement arrived)
  /// Removes and returns the first message that `match` accepts.
  std::optional<Message> take(const std::function<bool(const Message&)>& match);
};

/// A communicator as one member sees it.
struct Comm {
  uint64_t context = 0;
  std::vector<uint32_t> members;  ///< traced rank of each member
  int rank = 0;
  uint64_t collectives = 0;       ///< sequence number of the next collective
  uint64_t derived = 0;           ///< communicators derived from this one so far
  std::map<uint64_t, uint64_t> created_groups;  ///< per member set: creations so far
  bool graph = false;
  std::vector<int> in_neighbors, out_neighbors;
};

struct Group {
  std::vector<uint32_t> members;  ///< traced ranks
};

/// One collective operation in flight on a member (vmpi_block_collectives.cpp).
struct Collective;

struct Request {
  enum class Kind { kSend, kReceive, kCollective } kind = Kind::kSend;
  bool done = false;
  std::atomic<bool> acknowledged{true};  ///< synchronous sends: matched by the receiver
  // Receives.
  void* buffer = nullptr;
  std::size_t capacity = 0;
  int source = MPI_ANY_SOURCE;
  int tag = MPI_ANY_TAG;
  uint64_t context = 0;
  int status_source = 0;
  int status_tag = 0;
  std::size_t bytes = 0;
  std::unique_ptr<Collective> collective;
  Request();
  ~Request();
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;
};

/// The traced rank the calling thread replays.
struct Rank {
  uint32_t traced = 0;
  Mailbox* mailbox = nullptr;
  Comm* world = nullptr;
  Comm* self = nullptr;
  std::vector<Request*> receives;     ///< posted, not matched, in posting order
  std::vector<Request*> collectives;  ///< started, not finished
};
extern thread_local Rank* current;

/// The process's side of the transport (block_host.cpp).
void post(uint32_t destination, Message message);
/// Tells the sender of `message` that its synchronous send was matched.
void acknowledge(const Message& message);

// Helpers shared by the block layer's files.
Comm* comm_of(MPI_Comm handle);
inline MPI_Comm handle_of(Comm* comm) { return reinterpret_cast<MPI_Comm>(comm); }
std::size_t bytes_of(int count, MPI_Datatype type);
uint64_t derive_context(uint64_t parent, uint64_t salt);
/// Matches posted receives and advances started collectives of this rank.
void progress();
/// Progresses until `done()` is true, sleeping while nothing arrives.
void wait_until(const std::function<bool()>& done);
/// The tag of a collective's messages: its sequence number on the
/// communicator and the phase (two per instance at most).
inline int64_t collective_tag(int64_t sequence, int phase) { return 2 * sequence + phase; }
/// Blocks until a collective-context message from `source` with `tag` arrives.
Message take_collective(const Comm& comm, int source, int64_t tag);
/// Advances one collective; true once it has finished.
bool advance(Collective& collective);
void fill_status(MPI_Status* status, int source, int tag, std::size_t bytes);

}  // namespace orrery::vmpi::block

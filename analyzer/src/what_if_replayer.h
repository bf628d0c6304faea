#pragma once
// The what-if re-timing of one rank (what_if.h), private to the analyzer:
// the walk over the events and the message side live in
// what_if_replayer.cpp, the collective side in what_if_collectives.cpp.

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "orrery/analyzer/what_if.h"

namespace orrery::analyzer {

/// Walks one rank's events in order and re-times them on a machine model.
class WhatIfReplayer {
 public:
  /// Collective over `in.world` (duplicates it for the replay's messages).
  WhatIfReplayer(const ReplayInputs& in, const MachineModel& model);
  ~WhatIfReplayer();
  WhatIfReplayer(const WhatIfReplayer&) = delete;
  WhatIfReplayer& operator=(const WhatIfReplayer&) = delete;

  /// Re-times every event; with `apply` the trace gets the new times.
  void run(bool apply);

  [[nodiscard]] int64_t first_time() const { return first_time_; }
  [[nodiscard]] int64_t original_end() const { return original_end_; }
  [[nodiscard]] int64_t predicted_end() const { return predicted_end_; }

 private:
  /// An open region instance during the walk.
  struct Frame {
    bool mpi = false;
    bool communicated = false;  ///< an operation happened inside (its end is modelled)
    int64_t enter = 0;           ///< new time of its Enter
    int64_t original_enter = 0;
  };
  /// A collective instance between its start and its completion.
  struct PendingCollective {
    MPI_Request request = MPI_REQUEST_NULL;
    int64_t mine[3] = {};   ///< new enter, buffer bytes, traced enter
    int64_t group[3] = {};  ///< the same reduced over the group (see start_collective)
    int64_t enter = 0;
    int64_t original_enter = 0;
    int group_size = 1;
    int rank_in_group = 0;
    bool local = false;  ///< no partners: nothing was started
  };

  // Messages (what_if_replayer.cpp).
  [[nodiscard]] bool eager(uint64_t bytes) const { return bytes < model_.eager_limit; }
  /// Whether receive `recv`'s message is eager: decided by its sender's byte
  /// count, as the sender decides, so both sides agree even where the trace
  /// recorded different counts.
  [[nodiscard]] bool eager_receive(uint32_t recv) const;
  [[nodiscard]] int64_t ticks(double value) const;
  void post_send(uint32_t send, int64_t at);
  [[nodiscard]] int64_t complete_send(uint32_t send);
  void post_recv(uint32_t recv, int64_t at);
  /// The time the message's data is in; INT64_MIN for a receive without a partner.
  [[nodiscard]] int64_t complete_recv(uint32_t recv);
  void send_value(int64_t& slot, uint32_t peer, uint32_t number, MPI_Comm comm);
  [[nodiscard]] int64_t receive_value(uint32_t peer, uint32_t number, MPI_Comm comm);
  /// Waits for `request`, failing (instead of hanging) if the replay stalls.
  void wait_for(MPI_Request& request) const;

  // Collectives (what_if_collectives.cpp).
  void start_collective(uint32_t index, const Frame& start);
  [[nodiscard]] int64_t finish_collective(uint32_t index, int64_t original_exit);

  /// One communication event of the walk (run() handles Enter and Leave);
  /// returns its new time.
  [[nodiscard]] int64_t retime(uint32_t index, const Event& event, int64_t& now);

  ReplayInputs in_;
  MachineModel model_;
  MPI_Comm forward_ = MPI_COMM_NULL;   ///< sender → receiver values
  MPI_Comm backward_ = MPI_COMM_NULL;  ///< receiver → sender (rendezvous post times)
  int tag_limit_ = 32767;
  double latency_ticks_ = 0;
  double ticks_per_byte_ = 0;

  std::vector<uint8_t> region_is_mpi_;  ///< per region: 1 for an MPI function
  std::vector<Frame> stack_;
  int64_t out_free_ = INT64_MIN;  ///< the out link is busy until then
  int64_t in_free_ = INT64_MIN;   ///< the in link is busy until then
  std::vector<int64_t> send_ready_;  ///< per send: when it could start (new time)
  std::vector<int64_t> send_done_;   ///< per eager send: when its data left
  std::vector<int64_t> recv_post_;   ///< per receive: when it was posted (new time)
  std::vector<int64_t> sender_bytes_;  ///< per receive: its send's byte count (kNoValue: none)
  std::vector<int64_t> forward_out_, backward_out_;  ///< buffers of the outgoing values
  std::vector<MPI_Request> in_flight_;
  std::size_t next_cleanup_ = 4096;  ///< look for completed sends at this many in flight
  std::vector<int> indices_;         ///< MPI_Testsome's output
  std::unordered_map<uint32_t, std::unique_ptr<PendingCollective>> collectives_;

  int64_t first_time_ = 0;
  int64_t original_end_ = 0;
  int64_t predicted_end_ = 0;
};

}  // namespace orrery::analyzer

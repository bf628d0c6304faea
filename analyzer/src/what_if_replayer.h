#pragma once
// The what-if re-timing of one rank (what_if.h), private to the analyzer:
// the walk over the events and the message side live in
// what_if_replayer.cpp, the collective side in what_if_collectives.cpp, the
// ideal-network replay in one round without waits in what_if_rounds.cpp.

#include <mpi.h>

#include <array>
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

  /// The same as run(false) for the ideal network (no rendezvous, no
  /// costs), if nothing waits on it (what_if_rounds.cpp): one walk as if no
  /// receive or collective waited, one bulk exchange of every message's and
  /// collective's values, and a check that with these values nothing would
  /// have waited. False (the replay then has to run event by event)
  /// otherwise. Collective over `in.world`.
  [[nodiscard]] bool run_without_waits();
  /// Whether the walk without waits is worth trying: at least one receive
  /// per kEventsPerReceive events over all ranks (else the event-by-event
  /// replay pays few latencies). Collective over `in.world`.
  [[nodiscard]] bool worth_round() const;
  static constexpr int64_t kEventsPerReceive = 10;

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

  /// The walk without waits (run_without_waits): what this rank sent, and
  /// what it receives from its partners in the bulk exchange after it.
  struct Guesses {
    std::vector<int64_t> sent;      ///< per send: its value (kNoValue: none)
    std::vector<int64_t> received;  ///< per receive: its send's value
    std::vector<int64_t> reached;   ///< per receive: the time the walk reached it
    std::vector<uint32_t> completed;  ///< the receives in the order the walk completed them
    std::vector<std::array<int64_t, 3>> mine;   ///< per collective: this rank's values
    std::vector<std::array<int64_t, 3>> group;  ///< per collective: the group's
  };
  /// After the walk: the partners' values into `guesses`.
  void exchange_guesses(Guesses& guesses) const;
  /// The group values of the collectives on `comm` (instances `indices`).
  void exchange_collectives(MPI_Comm comm, const std::vector<uint32_t>& indices,
                            Guesses& guesses) const;
  /// After the exchange: how many receives and modelled collectives of this
  /// rank would have waited (0: a second walk would repeat the first).
  [[nodiscard]] int64_t would_wait(const Guesses& guesses) const;

  // Collectives (what_if_collectives.cpp).
  /// Init, finalize, communicator management: kept as traced after the
  /// last member arrived (their group's traced enter matters).
  [[nodiscard]] static bool unmodelled(CollectiveKind kind);
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
  MessageMatching::RouteIndex routes_;  ///< the messages' routes, quick for runs of one partner
  std::vector<int64_t> sender_bytes_;  ///< per receive: its send's byte count (kNoValue: none)
  std::vector<int64_t> forward_out_, backward_out_;  ///< buffers of the outgoing values
  std::vector<MPI_Request> in_flight_;
  std::size_t next_cleanup_ = 4096;  ///< look for completed sends at this many in flight
  std::vector<int> indices_;         ///< MPI_Testsome's output
  std::unordered_map<uint32_t, std::unique_ptr<PendingCollective>> collectives_;

  Guesses* guesses_ = nullptr;  ///< set: the walk without waits (no messages)

  int64_t first_time_ = 0;
  int64_t original_end_ = 0;
  int64_t predicted_end_ = 0;
};

}  // namespace orrery::analyzer

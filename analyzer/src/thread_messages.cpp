// Reading and matching the messages of a process's other threads
// (thread_messages.h); their replay is in thread_message_replay.cpp.

#include "orrery/analyzer/thread_messages.h"

#include <algorithm>
#include <numeric>

#include "orrery/run_json.h"
#include "orrery/trace/trace_reader.h"
#include "vmpi.h"

namespace orrery::analyzer {
namespace {

/// Where an operation was posted: its posting call, else the post event itself.
uint32_t posting(const MessageOp& op) { return op.post_call != kNone ? op.post_call : op.post_event; }

}  // namespace

uint64_t untraced_thread_mpi_calls(const std::string& experiment) {
  using namespace run_json::key;
  const auto run = run_json::read(run_json::file_of(experiment));
  if (!run) return 0;
  const auto calls = run_json::at(*run, {kMeasurement, kStatistics, kTotal, "other_thread_mpi_calls"});
  return calls.is_number_unsigned() ? calls.get<uint64_t>() : 0;
}

std::string describe_thread_gaps(const std::string& experiment, uint64_t untraced_calls) {
  using namespace run_json::key;
  uint64_t created = 0;
  if (const auto run = run_json::read(run_json::file_of(experiment))) {
    const auto ranks = run_json::at(*run, {kMeasurement, kStatistics, kPerRank});
    for (const auto& rank : ranks.is_array() ? ranks : nlohmann::json::array()) {
      const auto count = run_json::at(rank, {"anomalies", "thread_created_communicators"});
      if (count.is_number_unsigned()) created += count.get<uint64_t>();
    }
  }
  std::string text;
  if (created > 0) {
    text += "Warning: " + std::to_string(created) +
            " communicators were created on OpenMP worker threads but could not be registered (out of "
            "memory): the events on them name MPI_COMM_WORLD, so their collectives and messages may be "
            "paired with the world communicator's.\n";
  }
  if (untraced_calls == 0) return text;
  return text + "Note: " + std::to_string(untraced_calls) +
         " MPI calls were made on threads that were not traced (--no-openmp, or threads other than "
         "OpenMP's): a message between such a thread and a traced one has one side in the trace and is "
         "left unmatched (counted below; messages of one channel pair in posting order, so a missing one "
         "may shift the pairing of that channel's later messages), and their collectives are missing. "
         "Measure with OpenMP on to analyze them.\n";
}

void ThreadMessages::read(const std::string& experiment, const Definitions& definitions,
                          const LocalTrace& master) {
  threads_.clear();
  if (master.rank >= definitions.threads.size()) return;
  for (const ThreadDef& thread : definitions.threads[master.rank]) {
    LocalTrace& trace = threads_.emplace_back();
    read_thread_trace(experiment, definitions, master.rank, thread, master.clock_offsets, trace);
    // Only the messages and collectives matter here (thread_collectives.h
    // uses the same traces): a thread without any keeps nothing.
    if (trace.sends.empty() && trace.recvs.empty() && trace.collectives.empty()) {
      trace = LocalTrace{};
      trace.rank = master.rank;
    }
  }
}

void ThreadMessages::match(LocalTrace& master, const Definitions& definitions,
                           const Communicators& comms, MPI_Comm world, std::string& error) {
  error.clear();
  // One reduction: whether any rank's threads have messages, and whether
  // collectives (for thread_collectives.h).
  int mine[2] = {0, 0};
  for (const LocalTrace& thread : threads_) {
    if (!thread.sends.empty() || !thread.recvs.empty()) mine[0] = 1;
    if (!thread.collectives.empty()) mine[1] = 1;
  }
  int any[2] = {0, 0};
  vmpi::Allreduce(mine, any, 2, MPI_INT, MPI_MAX, world);
  active_ = any[0] != 0;
  collectives_ = any[1] != 0;
  if (!active_) return;

  // One table per process: every location's operations in posting order
  // (MPI's non-overtaking order per pair of processes, whatever the thread);
  // a location's own order is kept where times tie.
  const auto table = [&](MessageTable LocalTrace::* ops, std::vector<Entry>& entries) {
    entries.clear();
    std::vector<int64_t> times;
    for (uint32_t location = 0; location <= threads_.size(); ++location) {
      const LocalTrace& trace = trace_of(master, location);
      const MessageTable& list = trace.*ops;
      for (uint32_t i = 0; i < list.size(); ++i) {
        entries.push_back(Entry{location, i});
        const uint32_t at = posting(list[i]);
        times.push_back(at == kNone ? INT64_MIN : trace.events[at].time);
      }
    }
    std::vector<uint32_t> order(entries.size());
    std::iota(order.begin(), order.end(), 0U);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return times[a] < times[b]; });
    std::vector<Entry> sorted(entries.size());
    for (std::size_t k = 0; k < order.size(); ++k) sorted[k] = entries[order[k]];
    entries = std::move(sorted);
  };
  table(&LocalTrace::sends, sends_);
  table(&LocalTrace::recvs, recvs_);

  LocalTrace process;
  process.rank = master.rank;
  for (const Entry& e : sends_) process.sends.push_back(trace_of(master, e.location).sends[e.index]);
  for (const Entry& e : recvs_) process.recvs.push_back(trace_of(master, e.location).recvs[e.index]);
  matching_ = MessageMatching::build(process, definitions, comms, world, error);
  if (!error.empty()) return;

  // Which end of each message is another thread: each side tells the other.
  std::vector<int64_t> send_on_thread(sends_.size()), recv_on_thread(recvs_.size());
  for (std::size_t k = 0; k < sends_.size(); ++k) send_on_thread[k] = sends_[k].location != 0 ? 1 : 0;
  for (std::size_t k = 0; k < recvs_.size(); ++k) recv_on_thread[k] = recvs_[k].location != 0 ? 1 : 0;
  const std::vector<int64_t> sender_on_thread = matching_.to_receivers(send_on_thread, world);
  const std::vector<int64_t> receiver_on_thread = matching_.to_senders(recv_on_thread, world);

  // Thread messages: every operation of another thread (unless cancelled),
  // and the MPI thread's whose partner is another thread (marked cancelled
  // for its own replays).
  const auto classify = [&](const std::vector<Entry>& entries, const std::vector<int64_t>& partner_on_thread,
                            MessageTable LocalTrace::* ops, std::vector<uint8_t>& flags) {
    flags.assign(entries.size(), 0);
    for (std::size_t k = 0; k < entries.size(); ++k) {
      const Entry& e = entries[k];
      if (e.location != 0) {
        flags[k] = (threads_[e.location - 1].*ops)[e.index].cancelled ? 0 : 1;
      } else if (partner_on_thread[k] == 1) {
        flags[k] = 1;
        (master.*ops)[e.index].cancelled = true;
      }
    }
  };
  classify(sends_, receiver_on_thread, &LocalTrace::sends, send_is_thread_message_);
  classify(recvs_, sender_on_thread, &LocalTrace::recvs, recv_is_thread_message_);
}

}  // namespace orrery::analyzer

// MessageMatching against the exchange it replaced (prints times; never a test):
//   mpirun -np 4 build/bin/message_matching_bench [MESSAGES]
//
// Every rank sends MESSAGES/N messages (default 1,000,000 in total) to all
// ranks in turn on four tags and receives as many, interleaved; the benchmark
// times the reference validation and exchange (tests/analyzer/support/
// reference_matching.cpp, the old all-to-all way), MessageMatching::build
// (once per analysis) and both directions of its exchange, and exits 1 if the
// two exchanges disagree. The tests (analyzer.message_matching*) check the
// same equality on small tables; the timing lives here.

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "orrery/analyzer/communicators.h"
#include "orrery/analyzer/message_exchange.h"
#include "reference_matching.h"

namespace {

using namespace orrery::analyzer;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

MessageOp message(uint32_t peer, uint32_t tag) {
  MessageOp op;
  op.peer = peer;
  op.comm = 0;
  op.tag = tag;
  return op;
}

/// Times `step` between two barriers.
template <typename Step>
double timed(Step&& step) {
  MPI_Barrier(MPI_COMM_WORLD);
  const auto start = Clock::now();
  step();
  MPI_Barrier(MPI_COMM_WORLD);
  return seconds_since(start);
}

int run(uint64_t total_messages) {
  int size = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const auto n = static_cast<uint32_t>(size), me = static_cast<uint32_t>(rank);
  Definitions definitions;
  definitions.ranks.resize(n);
  CommDef world{"world", {}, false};
  for (uint32_t r = 0; r < n; ++r) world.members.push_back(r);
  definitions.comms[0] = world;
  const Communicators comms{definitions, me, MPI_COMM_WORLD};
  LocalTrace trace;
  trace.rank = me;
  const auto per_rank = static_cast<uint32_t>(total_messages / n);
  std::vector<int64_t> values;
  for (uint32_t i = 0; i < per_rank; ++i) {
    trace.sends.push_back(message((me + i) % n, i % 4));
    values.push_back(i);
  }
  for (uint32_t i = 0; i < per_rank; ++i) trace.recvs.push_back(message((me + n - i % n) % n, i % 4));

  std::vector<int64_t> old_result, new_result, back;
  std::string check, error;
  const double old_time = timed([&] {
    old_result = reference::exchange_along_messages(trace.sends, values, trace.recvs, definitions,
                                                    me, MPI_COMM_WORLD);
  });
  const double check_time = timed(
      [&] { check = reference::check_messages(trace, definitions, comms, MPI_COMM_WORLD); });
  MessageMatching matching;
  const double build_time = timed([&] {
    matching = MessageMatching::build(trace, definitions, comms, MPI_COMM_WORLD, error);
  });
  const double to_time = timed([&] { new_result = matching.to_receivers(values, MPI_COMM_WORLD); });
  const double back_time = timed([&] { back = matching.to_senders(new_result, MPI_COMM_WORLD); });
  const int agree = check.empty() && error.empty() && new_result == old_result && back == values;
  int all_agree = 0;
  MPI_Allreduce(&agree, &all_agree, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (me == 0) {
    std::printf("%u ranks, %u messages per rank\n"
                "  reference: check_messages %.1f ms, exchange_along_messages %.1f ms\n"
                "  MessageMatching: build %.1f ms (once per analysis), to_receivers %.1f ms, "
                "to_senders %.1f ms\n"
                "  results %s\n",
                n, per_rank, check_time * 1e3, old_time * 1e3, build_time * 1e3, to_time * 1e3,
                back_time * 1e3, all_agree ? "identical" : "DIFFER");
  }
  return all_agree ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const uint64_t messages = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  const int status = messages == 0 ? 2 : run(messages);
  if (messages == 0) std::fprintf(stderr, "usage: message_matching_bench [MESSAGES > 0]\n");
  MPI_Finalize();
  return status;
}

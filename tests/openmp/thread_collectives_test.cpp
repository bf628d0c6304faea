// The per-process stream of collective instances over a rank's threads
// (analyzer thread_collectives.h), on hand-built traces of 2 ranks: which
// location each instance's CollectiveCompleted goes to, at which call path,
// with which group-wide times, and that members disagreeing about a
// communicator's instances are a mismatch, never a pairing.

#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "orrery/analyzer/communicators.h"
#include "orrery/analyzer/thread_collectives.h"
#include "orrery/replay/replay_events.h"
#include "orrery/trace/trace_builder.h"

namespace orrery::analyzer {
namespace {

enum Region : uint32_t { kMain, kParallel, kBarrier, kAllreduce, kRegions };
constexpr uint32_t kWorld = 0;

Definitions two_ranks() {
  Definitions d;
  d.regions.resize(kRegions);
  d.regions[kMain].name = "main";
  d.regions[kParallel] = RegionDef{"!$omp parallel @app.c:3", "OMP", 3, Paradigm::kOpenmp, RegionRole::kParallel};
  d.regions[kBarrier] = RegionDef{"MPI_Barrier", "MPI", 0, Paradigm::kMpi, RegionRole::kOther};
  d.regions[kAllreduce] = RegionDef{"MPI_Allreduce", "MPI", 0, Paradigm::kMpi, RegionRole::kOther};
  d.comms[kWorld] = CommDef{"MPI_COMM_WORLD", {0, 1}, false};
  d.ranks.resize(2);
  d.threads.resize(2);
  for (uint32_t r = 0; r < 2; ++r) d.threads[r].push_back(ThreadDef{uint64_t{1} << 32 | r, 1, "OMP thread 1"});
  return d;
}

/// One blocking collective call over the world communicator.
struct Call {
  int64_t enter = 0;
  int64_t exit = 0;
  CollectiveKind kind = CollectiveKind::kBarrier;
  uint32_t region = kBarrier;
};
const Call kAllreduceCall{0, 0, CollectiveKind::kAllToAll, kAllreduce};

Call at(Call call, int64_t enter, int64_t exit) {
  call.enter = enter;
  call.exit = exit;
  return call;
}

void record(TraceBuilder& b, const Call& c) {
  b.enter(c.enter, c.region);
  b.collective_begin(c.enter);
  b.collective_end(c.exit, c.kind, kWorld, kNone, 4, 4);
  b.leave(c.exit, c.region);
}

/// A rank's collective calls on its MPI thread and on its worker.
struct Calls {
  std::vector<Call> master, worker;
};

/// What each location's bus received.
struct Received {
  std::vector<CollectiveCompleted> events;
};

class ThreadCollectivesTest : public ::testing::Test {
 protected:
  void SetUp() override { MPI_Comm_rank(MPI_COMM_WORLD, &rank_); }

  /// Builds this rank's traces (the master inside main, the worker inside
  /// its parallel region), selects and replays; fills master_/worker_.
  void run(const Calls& calls) {
    master_trace_ = LocalTrace{};
    master_trace_.rank = static_cast<uint32_t>(rank_);
    {
      TraceBuilder b(master_trace_);
      b.enter(0, kMain);
      for (const Call& c : calls.master) record(b, c);
      b.leave(1000, kMain);
      b.finish();
    }
    threads_.clear();
    threads_.emplace_back();
    threads_[0].rank = static_cast<uint32_t>(rank_);
    {
      TraceBuilder b(threads_[0]);
      b.enter(1, kParallel);
      for (const Call& c : calls.worker) record(b, c);
      b.leave(999, kParallel);
      b.finish();
    }
    // The rank's final tree: the master's, the worker's region below main.
    tree_ = master_trace_.calltree;
    const uint32_t main_path = tree_.find(kNone, kMain);
    parallel_path_ = tree_.child(main_path, kParallel);
    for (const uint32_t region : {kBarrier, kAllreduce}) tree_.child(parallel_path_, region);
    teams_ = {{ThreadSeverities::TeamEntry{1, main_path}}};

    const Definitions definitions = two_ranks();
    const Communicators comms(definitions, static_cast<uint32_t>(rank_), MPI_COMM_WORLD);
    int mine = threads_[0].collectives.empty() ? 0 : 1, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    collectives_.select(master_trace_, threads_, any != 0, definitions, comms, MPI_COMM_WORLD);
    EventBus master_bus, worker_bus;
    master_ = Received{};
    worker_ = Received{};
    master_bus.subscribe<CollectiveCompleted>([this](const CollectiveCompleted& e) { master_.events.push_back(e); });
    worker_bus.subscribe<CollectiveCompleted>([this](const CollectiveCompleted& e) { worker_.events.push_back(e); });
    statistics_ = ReplayStatistics{};
    collectives_.replay(master_trace_, definitions, comms, tree_, teams_, {&master_bus, &worker_bus}, statistics_);
  }

  [[nodiscard]] uint32_t worker_path(uint32_t region) const { return tree_.find(parallel_path_, region); }

  int rank_ = 0;
  LocalTrace master_trace_;
  std::vector<LocalTrace> threads_;
  CallTree tree_;
  uint32_t parallel_path_ = kNone;
  std::vector<std::vector<ThreadSeverities::TeamEntry>> teams_;
  ThreadCollectives collectives_;
  Received master_, worker_;
  ReplayStatistics statistics_;
};

TEST_F(ThreadCollectivesTest, TheMpiThreadAndAWorkerTakeTurnsOnOneCommunicator) {
  // Rank 0: the MPI thread's MPI_Allreduce [10, 50], then its worker's
  // MPI_Barrier [60, 90]. Rank 1: its worker's MPI_Allreduce [40, 50], then
  // its MPI thread's MPI_Barrier [80, 90]. The k-th instance of the process
  // pairs with the k-th of the other, whichever thread called it.
  const Calls calls = rank_ == 0 ? Calls{{at(kAllreduceCall, 10, 50)}, {at(Call{}, 60, 90)}}
                                 : Calls{{at(Call{}, 80, 90)}, {at(kAllreduceCall, 40, 50)}};
  run(calls);
  ASSERT_TRUE(collectives_.active());
  EXPECT_EQ(collectives_.size(), 2U);
  EXPECT_EQ(statistics_.collective_mismatches, 0U);
  EXPECT_EQ(statistics_.collectives, 2U);
  ASSERT_EQ(master_.events.size(), 1U);
  ASSERT_EQ(worker_.events.size(), 1U);
  const CollectiveCompleted& allreduce = rank_ == 0 ? master_.events[0] : worker_.events[0];
  const CollectiveCompleted& barrier = rank_ == 0 ? worker_.events[0] : master_.events[0];
  EXPECT_EQ(allreduce.kind, CollectiveKind::kAllToAll);
  EXPECT_EQ(allreduce.latest_enter, 40);
  EXPECT_EQ(allreduce.earliest_exit, 50);
  EXPECT_EQ(barrier.kind, CollectiveKind::kBarrier);
  EXPECT_EQ(barrier.latest_enter, 80);
  EXPECT_EQ(barrier.call.enter, rank_ == 0 ? 60 : 80);
  // Each at the call path of the location that called it.
  const uint32_t on_worker = rank_ == 0 ? worker_path(kBarrier) : worker_path(kAllreduce);
  EXPECT_NE(on_worker, kNone);
  EXPECT_EQ(worker_.events[0].call.callpath, on_worker);
  EXPECT_EQ(tree_.region(master_.events[0].call.callpath), rank_ == 0 ? kAllreduce : kBarrier);
  // The MPI thread's own replays no longer see its instance.
  for (const CollectiveOp& op : master_trace_.collectives) {
    EXPECT_EQ(op.comm, kNone);
    EXPECT_EQ(op.complete_call, kNone);
  }
}

TEST_F(ThreadCollectivesTest, DifferentCountsOverAllThreadsAreAMismatchNotAPairing) {
  // Rank 0's worker calls one barrier more: nothing of the communicator is
  // replayed, and both ranks count the mismatch.
  Calls calls;
  calls.worker = rank_ == 0 ? std::vector<Call>{at(Call{}, 10, 20), at(Call{}, 30, 40)}
                            : std::vector<Call>{at(Call{}, 15, 20)};
  run(calls);
  ASSERT_TRUE(collectives_.active());
  EXPECT_EQ(statistics_.collective_mismatches, 1U);
  EXPECT_TRUE(master_.events.empty());
  EXPECT_TRUE(worker_.events.empty());
}

TEST_F(ThreadCollectivesTest, WithoutWorkerCollectivesTheMpiThreadKeepsItsOwn) {
  Calls calls;
  calls.master = {at(Call{}, 10 + 10 * rank_, 50)};
  run(calls);
  EXPECT_FALSE(collectives_.active());
  EXPECT_TRUE(master_.events.empty());
  ASSERT_EQ(master_trace_.collectives.size(), 1U);
  EXPECT_EQ(master_trace_.collectives[0].comm, kWorld);
  EXPECT_NE(master_trace_.collectives[0].complete_call, kNone);
}

}  // namespace
}  // namespace orrery::analyzer

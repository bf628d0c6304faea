// The pattern registry and the classification of regions into time
// metrics: plain unit tests, no MPI.

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "orrery/analyzer/program_root.h"
#include "orrery/trace/trace_builder.h"
#include "orrery/patterns/region_class.h"
#include "orrery/patterns/registry.h"

namespace orrery::patterns {
namespace {

using analyzer::Paradigm;
using analyzer::RegionDef;
using analyzer::RegionRole;

TEST(PatternRegistry, HoldsExactlyTheDesignMetricsInPreOrder) {
  const PatternRegistry registry;
  const std::set<std::string> design = {
      "time", "visits", "execution", "mpi", "mpi_management", "mpi_init_exit",
      "mpi_synchronization", "mpi_sync_collective", "wait_at_barrier", "barrier_completion",
      "mpi_rma_synchronization", "mpi_communication", "mpi_point2point", "late_sender",
      "late_sender_wrong_order", "late_receiver", "mpi_collective", "early_reduce", "early_scan",
      "late_broadcast", "wait_at_nxn", "nxn_completion", "mpi_rma_communication", "mpi_io",
      "overhead", "bytes_sent", "bytes_received", "bytes_coll_out", "bytes_coll_in", "sends",
      "receives", "collectives", "late_sender_count", "late_receiver_count",
      "init_completion", "finalize_wait", "wait_at_neighbor", "omp", "omp_barrier_wait",
      // Root causes and wait-state classes (issue 10).
      "delay", "delay_mpi", "delay_p2p", "delay_late_sender", "delay_late_sender_short_term",
      "delay_late_sender_long_term", "delay_late_receiver", "delay_late_receiver_short_term",
      "delay_late_receiver_long_term", "delay_collective", "delay_barrier",
      "delay_barrier_short_term", "delay_barrier_long_term", "delay_nxn",
      "delay_nxn_short_term", "delay_nxn_long_term", "delay_late_broadcast",
      "delay_late_broadcast_short_term", "delay_late_broadcast_long_term",
      "delay_early_reduce", "delay_early_reduce_short_term", "delay_early_reduce_long_term",
      "wait_direct", "wait_indirect", "wait_propagating", "wait_terminal", "omp_idle_threads",
      // Critical path and load imbalance (issue 10).
      "critical_path", "critical_path_imbalance", "performance_impact", "imbalance",
      "imbalance_above", "imbalance_above_single", "imbalance_below", "imbalance_below_bypass",
      "imbalance_below_singularity"};
  std::set<std::string> names;
  const auto table = registry.metric_table();
  for (std::size_t row = 0; row < table.size(); ++row) {
    const MetricInfo& info = table[row];
    names.insert(info.name);
    EXPECT_LT(registry.parent_row(row), static_cast<int>(row)) << info.name;
    EXPECT_FALSE(info.display_name.empty()) << info.name;
    EXPECT_FALSE(info.description.empty()) << info.name;
    EXPECT_FALSE(info.diagnosis.empty()) << info.name;
    EXPECT_TRUE(info.unit == "sec" || info.unit == "occ" || info.unit == "bytes") << info.name;
    EXPECT_EQ(registry.row(info.name), row);
  }
  EXPECT_EQ(names, design);
  EXPECT_EQ(table.size(), design.size());
  EXPECT_EQ(table[registry.row("late_sender_wrong_order")].parent, "late_sender");
  EXPECT_EQ(table[registry.row("wait_at_barrier")].parent, "mpi_sync_collective");
  EXPECT_EQ(table[registry.row("bytes_sent")].parent, "");
  EXPECT_EQ(table[registry.row("init_completion")].parent, "mpi_init_exit");
  EXPECT_EQ(table[registry.row("finalize_wait")].parent, "mpi_init_exit");
  EXPECT_EQ(table[registry.row("delay_late_sender_long_term")].parent, "delay_late_sender");
  EXPECT_EQ(table[registry.row("delay_barrier")].parent, "delay_collective");
  EXPECT_EQ(table[registry.row("critical_path_imbalance")].parent, "critical_path");
  EXPECT_EQ(table[registry.row("imbalance_above_single")].parent, "imbalance_above");
  EXPECT_EQ(table[registry.row("imbalance_below_singularity")].parent, "imbalance_below_bypass");
  EXPECT_EQ(table[registry.row("wait_indirect")].parent, "");
}

RegionDef mpi(const std::string& name, RegionRole role = RegionRole::kFunction) {
  return RegionDef{name, "", 0, Paradigm::kMpi, role};
}

TEST(RegionClassification, MpiCallsByName) {
  EXPECT_EQ(time_category(mpi("MPI_Init"), false, false), "mpi_init_exit");
  EXPECT_EQ(time_category(mpi("MPI_Finalize"), false, false), "mpi_init_exit");
  EXPECT_EQ(time_category(mpi("MPI_Comm_split"), false, false), "mpi_management");
  EXPECT_EQ(time_category(mpi("MPI_Type_commit"), false, false), "mpi_management");
  EXPECT_EQ(time_category(mpi("MPI_File_open"), false, false), "mpi_management");
  EXPECT_EQ(time_category(mpi("MPI_Win_create"), false, false), "mpi_management");
  EXPECT_EQ(time_category(mpi("MPI_Barrier"), false, false), "mpi_sync_collective");
  EXPECT_EQ(time_category(mpi("MPI_Ibarrier"), false, false), "mpi_sync_collective");
  EXPECT_EQ(time_category(mpi("MPI_Win_fence"), false, false), "mpi_rma_synchronization");
  EXPECT_EQ(time_category(mpi("MPI_Win_unlock_all"), false, false), "mpi_rma_synchronization");
  EXPECT_EQ(time_category(mpi("MPI_Put"), false, false), "mpi_rma_communication");
  EXPECT_EQ(time_category(mpi("MPI_Get_accumulate"), false, false), "mpi_rma_communication");
  EXPECT_EQ(time_category(mpi("MPI_File_write_all"), false, false), "mpi_io");
  EXPECT_EQ(time_category(mpi("MPI_File_iread_at"), false, false), "mpi_io");
  EXPECT_EQ(time_category(mpi("MPI_Send"), true, true), "mpi_point2point");
  EXPECT_EQ(time_category(mpi("MPI_Waitall"), false, false), "mpi_point2point");
  EXPECT_EQ(time_category(mpi("MPI_Allreduce"), false, false), "mpi_collective");
  EXPECT_EQ(time_category(mpi("MPI_Reduce_scatter_block"), false, false), "mpi_collective");
  EXPECT_EQ(time_category(mpi("MPI_Ialltoallv"), false, false), "mpi_collective");
}

TEST(RegionClassification, PointToPointWithoutDataIsSynchronization) {
  EXPECT_EQ(time_category(mpi("MPI_Send"), true, false), "mpi_synchronization");
  EXPECT_EQ(time_category(mpi("MPI_Recv"), true, false), "mpi_synchronization");
}

TEST(RegionClassification, UnknownCallsAreStillAnalyzed) {
  EXPECT_EQ(time_category(mpi("MPI_Pcontrol"), false, false), "mpi");
  EXPECT_EQ(time_category(mpi("MPIX_Something", RegionRole::kPointToPoint), false, false),
            "mpi_point2point");
  EXPECT_EQ(time_category(mpi("MPI_Neighbor_alltoall"), false, false), "mpi_collective");
}

TEST(RegionClassification, NonMpiRegions) {
  EXPECT_EQ(time_category(RegionDef{"main", "a.c", 3, Paradigm::kCompiler, RegionRole::kFunction},
                          false, false),
            "execution");
  EXPECT_EQ(time_category(RegionDef{"phase", "", 0, Paradigm::kUser, RegionRole::kFunction},
                          false, false),
            "execution");
  EXPECT_EQ(time_category(RegionDef{"ORRERY_FLUSH", "", 0, Paradigm::kMeasurement,
                                    RegionRole::kArtificial},
                          false, false),
            "overhead");
  EXPECT_EQ(time_category(RegionDef{"TRACE BUFFER FLUSH", "", 0, Paradigm::kMeasurement,
                                    RegionRole::kArtificial},
                          false, false),
            "overhead");
  // The program root (synthetic or written by the measurement) is computing time.
  EXPECT_EQ(time_category(RegionDef{"stencil2d", "", 0, Paradigm::kMeasurement,
                                    RegionRole::kArtificial},
                          false, false),
            "execution");
}

TEST(ProgramRoot, NameFromTheLaunchedCommand) {
  using analyzer::program_from_command;
  EXPECT_EQ(program_from_command({"mpirun", "-np", "4", "/work/build/examples/stencil2d",
                                  "--size", "64"}),
            "stencil2d");
  EXPECT_EQ(program_from_command({"/usr/bin/mpiexec", "--mca", "btl", "self", "-x", "A=1",
                                  "--oversubscribe", "-n", "2", "./a.out"}),
            "a.out");
  EXPECT_EQ(program_from_command({"/opt/app/solver", "-i", "in.txt"}), "solver");
  EXPECT_EQ(program_from_command({"mpirun", "-np", "2"}), "");
  EXPECT_EQ(program_from_command({}), "");
}

TEST(ProgramRoot, SyntheticRootEnclosesAllEventsAndShiftsLinks) {
  using analyzer::EventKind;
  analyzer::LocalTrace trace;
  analyzer::TraceBuilder builder(trace);
  builder.enter(10, 1);
  builder.send(11, 1, 0, 0, 8);
  builder.leave(12, 1);
  builder.enter(20, 2);  // no communication inside: folded, not kept
  builder.leave(30, 2);
  builder.finish();
  ASSERT_EQ(trace.events_read, 5u);
  ASSERT_EQ(trace.events.size(), 3u);
  ASSERT_TRUE(analyzer::needs_root(trace));
  ASSERT_TRUE(analyzer::enclose_in_root(trace, 7));
  ASSERT_EQ(trace.events.size(), 5u);
  EXPECT_EQ(trace.events[0].kind(), EventKind::kEnter);
  EXPECT_EQ(trace.events[0].ref(), 0u);  // the root is call path 0
  EXPECT_EQ(trace.calltree.region(0), 7u);
  EXPECT_EQ(trace.events[0].time, 10);
  EXPECT_EQ(trace.events[0].link, 4u);
  EXPECT_EQ(trace.events[4].kind(), EventKind::kLeave);
  EXPECT_EQ(trace.events[4].time, 30);
  EXPECT_EQ(trace.events[1].link, 3u);  // the first region's Enter → its Leave
  EXPECT_EQ(trace.events[3].link, 1u);
  EXPECT_EQ(trace.events[1].ref(), 1u);   // its call path moved up by one
  EXPECT_EQ(trace.calltree.nodes()[1].parent, 0u);
  EXPECT_EQ(trace.calltree.region(1), 1u);
  EXPECT_EQ(trace.sends[0].post_call, 1u);
  EXPECT_EQ(trace.sends[0].post_event, 2u);
  EXPECT_EQ(trace.events[2].link, 0u);  // the send still points at its table entry
  // The folded instance of region 2 is a child of the root with its totals,
  // and the root's Leave knows how long its folded children took.
  EXPECT_EQ(trace.calltree.region(2), 2u);
  EXPECT_EQ(trace.calltree.nodes()[2].parent, 0u);
  EXPECT_EQ(trace.folded[2].visits, 1u);
  EXPECT_EQ(trace.folded[2].exclusive, 10);
  ASSERT_NE(trace.events[4].ref(), analyzer::kNone);
  EXPECT_EQ(trace.folded_child_time[trace.events[4].ref()], 10);
  // Already one root: nothing to do.
  EXPECT_FALSE(analyzer::needs_root(trace));
  EXPECT_FALSE(analyzer::enclose_in_root(trace, 7));
}

TEST(TraceBuilder, FoldsInstancesWithoutCommunication) {
  using analyzer::EventKind;
  analyzer::LocalTrace trace;
  analyzer::TraceBuilder builder(trace);
  builder.enter(0, 1);        // main: kept (a send below it)
  builder.enter(10, 2);       //   compute: folded with its callee
  builder.enter(12, 3);       //     kernel: folded
  builder.leave(17, 3);
  builder.leave(20, 2);
  builder.enter(20, 4);       //   MPI_Send: kept
  builder.send(21, 1, 0, 0, 8);
  builder.leave(22, 4);
  builder.enter(30, 2);       //   compute again: same call path
  builder.leave(34, 2);
  builder.leave(40, 1);
  builder.finish();
  EXPECT_EQ(trace.events_read, 11u);
  ASSERT_EQ(trace.events.size(), 5u);  // main, MPI_Send, send, MPI_Send, main
  EXPECT_EQ(trace.events[1].kind(), EventKind::kEnter);
  EXPECT_EQ(trace.events[2].kind(), EventKind::kSend);
  const uint32_t compute = trace.calltree.child(0, 2);
  const uint32_t kernel = trace.calltree.child(compute, 3);
  EXPECT_EQ(trace.folded[compute].visits, 2u);
  EXPECT_EQ(trace.folded[compute].exclusive, (10 - 5) + 4);
  EXPECT_EQ(trace.folded[kernel].visits, 1u);
  EXPECT_EQ(trace.folded[kernel].exclusive, 5);
  EXPECT_EQ(trace.events[1].ref(), trace.calltree.child(0, 4));
  EXPECT_EQ(trace.events[3].ref(), analyzer::kNone);  // MPI_Send had no folded callee
  ASSERT_NE(trace.events[4].ref(), analyzer::kNone);  // main had: 10 + 4 ticks
  EXPECT_EQ(trace.folded_child_time[trace.events[4].ref()], 14);
  EXPECT_FALSE(analyzer::needs_root(trace));
}

TEST(ProgramRoot, RootOverOnlyFoldedInstancesIsFoldedToo) {
  // No communication at all: both top-level instances are folded, and so is
  // the synthetic root, whose exclusive time is the gap between them.
  analyzer::LocalTrace trace;
  analyzer::TraceBuilder builder(trace);
  builder.enter(10, 1);
  builder.leave(20, 1);
  builder.enter(25, 2);
  builder.leave(40, 2);
  builder.finish();
  ASSERT_EQ(trace.events.size(), 0u);
  ASSERT_TRUE(analyzer::needs_root(trace));
  ASSERT_TRUE(analyzer::enclose_in_root(trace, 9));
  EXPECT_EQ(trace.events.size(), 0u);
  EXPECT_EQ(trace.calltree.region(0), 9u);
  EXPECT_EQ(trace.folded[0].visits, 1u);
  EXPECT_EQ(trace.folded[0].exclusive, 5);  // 30 ticks, of which 10 + 15 in the children
  EXPECT_EQ(trace.folded[1].visits, 1u);
  EXPECT_EQ(trace.folded[1].exclusive, 10);
  EXPECT_EQ(trace.folded[2].exclusive, 15);
  EXPECT_FALSE(analyzer::needs_root(trace));
}

TEST(TraceBuilder, AppliesClockOffsetsWhileReading) {
  analyzer::LocalTrace trace;
  // Offset 100 at local 0, 300 at local 1000: reference = local + 100 + 0.2 * local.
  trace.clock_offsets = {{1000, 300}, {0, 100}};
  analyzer::TraceBuilder builder(trace);
  builder.enter(0, 1);
  builder.send(500, 1, 0, 0, 8);
  builder.leave(1000, 1);
  builder.finish();
  ASSERT_EQ(trace.events.size(), 3u);
  EXPECT_EQ(trace.events[0].time, 100);
  EXPECT_EQ(trace.events[1].time, 700);
  EXPECT_EQ(trace.events[2].time, 1300);
}

}  // namespace
}  // namespace orrery::patterns

// Orrery's OTF2 event decoder against libotf2: traces written with libotf2's
// writer, read both ways, the LocalTraces compared field by field; the
// decoder must have read them itself (no fall-back).

#include <gtest/gtest.h>
#include <otf2/otf2.h>

#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "decoder_comparison.h"
#include "test_archive.h"

namespace orrery::testing {
namespace {

namespace fs = std::filesystem;

/// Values of every compressed width: 0, 1 .. 4 bytes, undefined (a single 0xff).
constexpr std::array<uint32_t, 7> kWidths32 = {0, 0x7f, 0xab, 0xabcd, 0xabcdef, 0xfedcba98, 0xffffffff};
/// 0, 1 .. 8 bytes, undefined.
constexpr std::array<uint64_t, 10> kWidths64 = {
    0, 0x12, 0x1234, 0x123456, 0x12345678, 0x123456789a, 0x123456789abc, 0x123456789abcde,
    0xfedcba9876543210, 0xffffffffffffffff};

/// The events every reader callback handles, many times over (several
/// chunks of 256 KiB), with attribute lists and events no callback takes.
void write_every_kind(const std::string& dir) {
  TestArchive archive(dir, 1, 0, 256 * 1024);
  const uint32_t main_region = archive.region("main");
  std::vector<uint32_t> fillers;  // ids up to 300: two-byte region ids
  for (int i = 0; i < 300; ++i) fillers.push_back(archive.region("work" + std::to_string(i)));
  const uint32_t init = archive.region("MPI_Init", "mpi"), finalize = archive.region("MPI_Finalize", "mpi");
  const uint32_t send = archive.region("MPI_Send", "mpi"), recv = archive.region("MPI_Recv", "mpi");
  const uint32_t isend = archive.region("MPI_Isend", "mpi"), irecv = archive.region("MPI_Irecv", "mpi");
  const uint32_t wait = archive.region("MPI_Wait", "mpi"), allreduce = archive.region("MPI_Allreduce", "mpi");
  const uint32_t bcast = archive.region("MPI_Bcast", "mpi"), iallreduce = archive.region("MPI_Iallreduce", "mpi");
  const uint32_t split = archive.comm("split", {0});
  const uint32_t program = archive.define_string("the program");
  TestArchive::Rank& rank = archive.rank(0);
  auto* writer = static_cast<OTF2_EvtWriter*>(rank.otf2_writer());
  uint64_t t = uint64_t{1} << 40;
  auto later = [&](uint64_t step) { return t += step; };

  rank.program_begin(later(1), program);
  rank.enter(later(3), main_region);
  rank.enter(later(1), init);
  rank.leave(later(100), init);
  for (uint32_t i = 0; i < 12000; ++i) {
    const uint32_t tag = kWidths32[i % kWidths32.size()];
    const uint64_t bytes = kWidths64[i % kWidths64.size()];
    const uint32_t comm = i % 3 == 0 ? split : TestArchive::kWorld;
    OTF2_AttributeList* attributes = OTF2_AttributeList_New();
    if (i % 7 == 0) {
      OTF2_AttributeList_AddUint64(attributes, 1, bytes);
      OTF2_AttributeList_AddUint8(attributes, 2, 9);
    }
    OTF2_EvtWriter_Enter(writer, attributes, later(i % 5 == 0 ? 70000 : 2), fillers[i % fillers.size()]);
    OTF2_AttributeList_Delete(attributes);
    if (i % 13 == 0) {  // records no callback takes: skipped, as libotf2 skips them
      OTF2_EvtWriter_MpiRequestTest(writer, nullptr, later(1), bytes);
      OTF2_EvtWriter_ThreadFork(writer, nullptr, later(1), OTF2_PARADIGM_OPENMP, 4);
      OTF2_EvtWriter_ThreadJoin(writer, nullptr, later(1), OTF2_PARADIGM_OPENMP);
      OTF2_EvtWriter_RmaPut(writer, nullptr, later(1), 1, tag, bytes, bytes);
      OTF2_EvtWriter_ParameterInt(writer, nullptr, later(1), 2, -static_cast<int64_t>(i));
      const OTF2_Type types[2] = {OTF2_TYPE_UINT64, OTF2_TYPE_DOUBLE};
      OTF2_MetricValue values[2];
      values[0].unsigned_int = bytes;
      values[1].floating_point = 0.5 * i;
      OTF2_EvtWriter_Metric(writer, nullptr, later(1), 3, 2, types, values);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
      OTF2_EvtWriter_OmpFork(writer, nullptr, later(1), tag);
#pragma GCC diagnostic pop
    }
    rank.leave(later(5), fillers[i % fillers.size()]);
    rank.enter(later(1), send);
    rank.send(later(1), 0, comm, tag, bytes);
    rank.leave(later(1), send);
    rank.enter(later(1), recv);
    rank.recv(later(1), 0, comm, tag, bytes);
    rank.leave(later(1), recv);
    const uint64_t request = kWidths64[(i + 3) % (kWidths64.size() - 1)] + i;
    rank.enter(later(1), isend);
    rank.isend(later(1), 0, comm, tag, bytes, request);
    rank.leave(later(1), isend);
    rank.enter(later(1), irecv);
    rank.irecv_request(later(1), request + 1);
    rank.leave(later(1), irecv);
    rank.enter(later(1), wait);
    rank.isend_complete(later(1), request);
    rank.irecv(later(1), 0, comm, tag, bytes, request + 1);
    rank.leave(later(1), wait);
    if (i % 5 == 0) {
      const bool rooted = i % 10 == 0;
      rank.enter(later(2), rooted ? bcast : allreduce);
      rank.collective_begin(later(1));
      rank.collective_end(later(9), rooted ? Collective::kBcast : Collective::kAllreduce, comm,
                          rooted ? 0 : TestArchive::kNoRoot, bytes, kWidths64[(i + 1) % kWidths64.size()]);
      rank.leave(later(1), rooted ? bcast : allreduce);
    }
    if (i % 11 == 0) {
      rank.enter(later(1), iallreduce);
      rank.nbc_request(later(1), request + 2);
      rank.leave(later(1), iallreduce);
      rank.enter(later(1), wait);
      rank.nbc_complete(later(1), Collective::kAllreduce, comm, TestArchive::kNoRoot, bytes, bytes, request + 2);
      rank.leave(later(1), wait);
    }
    if (i % 17 == 0) {
      rank.enter(later(1), irecv);
      rank.irecv_request(later(1), request + 3);
      OTF2_EvtWriter_MpiRequestCancelled(writer, nullptr, later(1), request + 3);
      rank.leave(later(1), irecv);
    }
    if (i % 1000 == 999) {
      rank.buffer_flush(later(1), t + 500);
      later(500);
      rank.measurement(later(1), false);
      rank.measurement(later(4000), true);
    }
  }
  rank.enter(later(1), finalize);
  rank.leave(later(50), finalize);
  rank.leave(later(1), main_region);
  rank.program_end(later(1), -1);
  archive.clock_offset(0, 0, 5);
  archive.clock_offset(0, t, -7);
  archive.close();
}

TEST(TraceDecoder, EveryHandledEventInEveryWidthAsLibotf2ReadsIt) {
  const std::string dir = fresh_dir("every-kind");
  write_every_kind(dir);
  ASSERT_GT(fs::file_size(fs::path(dir) / "traces" / "0.evt"), 4u * 256 * 1024) << "several chunks";
  const analyzer::LocalTrace ours = read_both_ways(dir, true);
  EXPECT_GT(ours.events_read, 200000u);
  EXPECT_GT(ours.collectives.size(), 3000u);
  EXPECT_EQ(ours.program_name, "the program");
  EXPECT_TRUE(ours.measurement_regions_used);
  EXPECT_EQ(ours.clock_offsets.size(), 2u);
  // The analyzer's own id translation (an incomplete experiment) on top.
  analyzer::IdMapping mapping;
  for (uint32_t region = 0; region < 320; ++region) mapping.regions.push_back(region + 1);
  mapping.comms = {5, 6};
  EXPECT_EQ(read_both_ways(dir, true, &mapping).sends[0].comm, 6u);
  fs::remove_all(dir);
}

/// Events written with local ids, mapped by OTF2 mapping tables in the
/// rank's local definitions (as Score-P writes them).
TEST(TraceDecoder, MappingTablesAppliedAsLibotf2AppliesThem) {
  const std::string dir = fresh_dir("mapping");
  {
    TestArchive archive(dir, 1);
    const uint32_t main_region = archive.region("main");
    const uint32_t work = archive.region("work");
    const uint32_t send = archive.region("MPI_Send", "mpi");
    const uint32_t other = archive.comm("other", {0});
    const uint32_t program = archive.define_string("mapped program");
    TestArchive::Rank& rank = archive.rank(0);
    rank.program_begin(1, 40);                  // string 40 -> program
    rank.enter(2, main_region);                 // not in the region table: stays
    rank.enter(3, 7);                           // 7 -> work
    rank.leave(4, 7);
    rank.enter(5, 9);                           // 9 -> MPI_Send
    rank.send(6, 0, 1, 3, 8);                   // comm 1 -> world (dense table)
    rank.send(7, 0, 0, 3, 8);                   // comm 0 -> other
    rank.leave(8, 9);
    rank.leave(9, main_region);
    rank.program_end(10, 0);
    archive.mapping_table(0, OTF2_MAPPING_REGION, {{7, work}, {9, send}});
    archive.mapping_table(0, OTF2_MAPPING_COMM, {{0, other}, {1, TestArchive::kWorld}}, true);
    archive.mapping_table(0, OTF2_MAPPING_STRING, {{40, program}});
    archive.mapping_table(0, OTF2_MAPPING_METRIC, {{1, 2}});  // no field the readers use
    archive.close();
  }
  const analyzer::LocalTrace ours = read_both_ways(dir, true);
  // libotf2 did map them (else the comparison proves little).
  EXPECT_EQ(ours.program_name, "mapped program");
  ASSERT_EQ(ours.sends.size(), 2u);
  EXPECT_EQ(ours.sends[0].comm, TestArchive::kWorld);
  EXPECT_EQ(ours.sends[1].comm, 1u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace orrery::testing

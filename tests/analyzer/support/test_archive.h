#pragma once
// Writes small (or, for the benchmark, large) OTF2 archives the way a
// measurement would: global definitions with ranks, regions and
// communicators, per-rank events streamed to OTF2's writer, optional clock
// offsets. Tests use it to build traces with known wait states by hand.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace orrery::testing {

/// Collective operation codes (the values of OTF2's OTF2_CollectiveOp).
enum class Collective : uint8_t {
  kBarrier = 0, kBcast = 1, kGather = 2, kScatter = 4, kAllgather = 6, kAlltoall = 8,
  kAllreduce = 11, kReduce = 12, kScan = 14, kExscan = 15, kCreateHandle = 17, kDestroyHandle = 18,
};

/// An OTF2 archive being written: definitions are collected, events are
/// streamed per rank, close() writes the definitions.
class TestArchive {
 public:
  static constexpr uint32_t kWorld = 0;  ///< id of MPI_COMM_WORLD

  /// Creates `directory`/traces.otf2 for `ranks` ranks (one location each).
  /// Location ids are `location_base + rank` (Orrery writes 0-based ids;
  /// other producers may not), and the location groups get ids 0..ranks-1.
  /// `event_chunk_size`: OTF2's event chunk size (256 KiB to 16 MiB).
  TestArchive(const std::string& directory, uint32_t ranks, uint64_t location_base = 0,
              uint64_t event_chunk_size = 1024 * 1024);
  ~TestArchive();
  TestArchive(const TestArchive&) = delete;
  TestArchive& operator=(const TestArchive&) = delete;

  /// A region; paradigm is "mpi", "compiler", "user" or "measurement".
  uint32_t region(const std::string& name, const std::string& paradigm = "compiler");
  /// A region written with an arbitrary id (for damaged-definition tests).
  void region_with_id(uint32_t id, const std::string& name);
  /// A communicator over world ranks (in communicator rank order).
  uint32_t comm(const std::string& name, const std::vector<uint32_t>& members);
  /// The archive's creator string (as a producer names itself).
  void creator(const std::string& name);
  /// The experiment directory the archive is written to.
  [[nodiscard]] const std::string& directory() const { return directory_; }
  /// A string definition (e.g. the program name of ProgramBegin); its id.
  uint32_t define_string(const std::string& text) { return string(text); }
  /// A clock offset record of a rank (reference = local + offset).
  void clock_offset(uint32_t rank, uint64_t time, int64_t offset);
  /// An OTF2 mapping table (OTF2_MappingType `kind`) in a rank's local
  /// definitions: written id -> global id, as `pairs` (`dense`: the pairs
  /// are (0, g0), (1, g1), ... and OTF2 stores them as an array).
  void mapping_table(uint32_t rank, uint8_t kind, const std::vector<std::pair<uint64_t, uint64_t>>& pairs,
                     bool dense = false);

  /// Event writing for one rank; timestamps in ns, in order.
  class Rank {
   public:
    void enter(uint64_t t, uint32_t region);
    void leave(uint64_t t, uint32_t region);
    void send(uint64_t t, uint32_t peer, uint32_t comm, uint32_t tag, uint64_t bytes);
    void isend(uint64_t t, uint32_t peer, uint32_t comm, uint32_t tag, uint64_t bytes,
               uint64_t request);
    void isend_complete(uint64_t t, uint64_t request);
    void recv(uint64_t t, uint32_t peer, uint32_t comm, uint32_t tag, uint64_t bytes);
    void irecv_request(uint64_t t, uint64_t request);
    void irecv(uint64_t t, uint32_t peer, uint32_t comm, uint32_t tag, uint64_t bytes,
               uint64_t request);
    void collective_begin(uint64_t t);
    void collective_end(uint64_t t, Collective op, uint32_t comm, uint32_t root, uint64_t sent,
                        uint64_t received);
    void nbc_request(uint64_t t, uint64_t request);
    void nbc_complete(uint64_t t, Collective op, uint32_t comm, uint32_t root, uint64_t sent,
                      uint64_t received, uint64_t request);
    /// OTF2 ProgramBegin (program name: a define_string id) and ProgramEnd.
    void program_begin(uint64_t t, uint32_t program);
    void program_end(uint64_t t, int64_t exit_status);
    /// OTF2 BufferFlush from `t` to `stop` (as Score-P writes it).
    void buffer_flush(uint64_t t, uint64_t stop);
    /// OTF2 MeasurementOnOff: recording switched off (`on` false) or on again.
    void measurement(uint64_t t, bool on);
    [[nodiscard]] uint64_t events() const { return events_; }
    /// The rank's OTF2_EvtWriter, for records the methods above do not write.
    [[nodiscard]] void* otf2_writer() const { return writer_; }

   private:
    friend class TestArchive;
    void* writer_ = nullptr;  // OTF2_EvtWriter*
    uint64_t events_ = 0;
    uint64_t last_ = 0;
  };
  Rank& rank(uint32_t r);

  /// Writes the definitions and closes the archive.
  void close();

  static constexpr uint32_t kNoRoot = 0xFFFFFFFFu;

 private:
  uint32_t string(const std::string& text);

  struct RegionDef { uint32_t name; uint8_t paradigm; uint8_t role; };
  struct CommDef { uint32_t name; std::vector<uint32_t> members; };
  void* archive_ = nullptr;  // OTF2_Archive*
  std::string directory_;
  uint32_t ranks_;
  uint64_t location_base_;
  std::vector<Rank> rank_writers_;
  std::map<std::string, uint32_t> strings_;
  std::vector<std::string> string_list_;
  std::vector<RegionDef> regions_;
  std::vector<std::pair<uint32_t, uint32_t>> regions_with_ids_;  ///< (id, name string)
  std::vector<CommDef> comms_;
  std::map<uint32_t, std::vector<std::pair<uint64_t, int64_t>>> offsets_;
  struct MappingTable { uint8_t kind; std::vector<std::pair<uint64_t, uint64_t>> pairs; bool dense; };
  std::map<uint32_t, std::vector<MappingTable>> mapping_tables_;
  bool closed_ = false;
};

}  // namespace orrery::testing

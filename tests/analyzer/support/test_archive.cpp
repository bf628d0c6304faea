#include "test_archive.h"

#include <otf2/otf2.h>

#include <filesystem>
#include <stdexcept>

namespace orrery::testing {
namespace {

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
OTF2_TimeStamp post_flush(void*, OTF2_FileType, OTF2_LocationRef) { return 0; }
OTF2_FlushCallbacks flush_callbacks = {pre_flush, post_flush};

void check(OTF2_ErrorCode code, const char* what) {
  if (code != OTF2_SUCCESS) {
    throw std::runtime_error(std::string("OTF2 writing failed: ") + what + ": " +
                             OTF2_Error_GetDescription(code));
  }
}

OTF2_Archive* A(void* p) { return static_cast<OTF2_Archive*>(p); }
OTF2_EvtWriter* W(void* p) { return static_cast<OTF2_EvtWriter*>(p); }

uint8_t role_of(const std::string& name, OTF2_Paradigm paradigm) {
  if (paradigm != OTF2_PARADIGM_MPI) return OTF2_REGION_ROLE_FUNCTION;
  const std::string op = name.substr(4);
  if (op == "Barrier" || op == "Ibarrier") return OTF2_REGION_ROLE_BARRIER;
  if (op.starts_with("Bcast") || op.starts_with("Scatter")) return OTF2_REGION_ROLE_COLL_ONE2ALL;
  if (op.starts_with("Reduce") || op.starts_with("Gather")) return OTF2_REGION_ROLE_COLL_ALL2ONE;
  if (op.starts_with("All")) return OTF2_REGION_ROLE_COLL_ALL2ALL;
  if (op.starts_with("Scan") || op.starts_with("Exscan")) return OTF2_REGION_ROLE_COLL_OTHER;
  if (op.find("end") != std::string::npos || op.find("ecv") != std::string::npos ||
      op.starts_with("Wait") || op.starts_with("Test")) {
    return OTF2_REGION_ROLE_POINT2POINT;
  }
  return OTF2_REGION_ROLE_FUNCTION;
}

}  // namespace

TestArchive::TestArchive(const std::string& directory, uint32_t ranks, uint64_t location_base,
                         uint64_t event_chunk_size)
    : directory_(directory), ranks_(ranks), location_base_(location_base) {
  std::filesystem::create_directories(directory);
  archive_ = OTF2_Archive_Open(directory.c_str(), "traces", OTF2_FILEMODE_WRITE, event_chunk_size,
                               4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (archive_ == nullptr) throw std::runtime_error("cannot create OTF2 archive in " + directory);
  check(OTF2_Archive_SetFlushCallbacks(A(archive_), &flush_callbacks, nullptr), "flush callbacks");
  check(OTF2_Archive_SetSerialCollectiveCallbacks(A(archive_)), "collective callbacks");
  check(OTF2_Archive_OpenEvtFiles(A(archive_)), "open event files");
  rank_writers_.resize(ranks);
  for (uint32_t r = 0; r < ranks; ++r) {
    rank_writers_[r].writer_ = OTF2_Archive_GetEvtWriter(A(archive_), location_base_ + r);
  }
  string("");
  comms_.push_back(CommDef{string("MPI_COMM_WORLD"), {}});
  for (uint32_t r = 0; r < ranks; ++r) comms_[0].members.push_back(r);
}

TestArchive::~TestArchive() {
  try {
    close();
  } catch (...) {  // destructors must not throw; close() explicitly to see errors
  }
}

uint32_t TestArchive::string(const std::string& text) {
  auto [it, inserted] = strings_.try_emplace(text, static_cast<uint32_t>(string_list_.size()));
  if (inserted) string_list_.push_back(text);
  return it->second;
}

void TestArchive::region_with_id(uint32_t id, const std::string& name) {
  regions_with_ids_.emplace_back(id, string(name));
}

uint32_t TestArchive::region(const std::string& name, const std::string& paradigm) {
  OTF2_Paradigm p = OTF2_PARADIGM_COMPILER;
  if (paradigm == "mpi") p = OTF2_PARADIGM_MPI;
  if (paradigm == "user") p = OTF2_PARADIGM_USER;
  if (paradigm == "measurement") p = OTF2_PARADIGM_MEASUREMENT_SYSTEM;
  regions_.push_back(RegionDef{string(name), p, role_of(name, p)});
  return static_cast<uint32_t>(regions_.size() - 1);
}

uint32_t TestArchive::comm(const std::string& name, const std::vector<uint32_t>& members) {
  comms_.push_back(CommDef{string(name), members});
  return static_cast<uint32_t>(comms_.size() - 1);
}

void TestArchive::clock_offset(uint32_t rank, uint64_t time, int64_t offset) {
  offsets_[rank].emplace_back(time, offset);
}

void TestArchive::mapping_table(uint32_t rank, uint8_t kind,
                                const std::vector<std::pair<uint64_t, uint64_t>>& pairs, bool dense) {
  mapping_tables_[rank].push_back(MappingTable{kind, pairs, dense});
}

TestArchive::Rank& TestArchive::rank(uint32_t r) { return rank_writers_.at(r); }

#define ORRERY_WRITE(call)                       \
  do {                                           \
    check(call, #call);                          \
    ++events_;                                   \
    last_ = t;                                   \
  } while (false)

void TestArchive::Rank::enter(uint64_t t, uint32_t region) {
  ORRERY_WRITE(OTF2_EvtWriter_Enter(W(writer_), nullptr, t, region));
}
void TestArchive::Rank::leave(uint64_t t, uint32_t region) {
  ORRERY_WRITE(OTF2_EvtWriter_Leave(W(writer_), nullptr, t, region));
}
void TestArchive::Rank::send(uint64_t t, uint32_t peer, uint32_t comm, uint32_t tag, uint64_t bytes) {
  ORRERY_WRITE(OTF2_EvtWriter_MpiSend(W(writer_), nullptr, t, peer, comm, tag, bytes));
}
void TestArchive::Rank::isend(uint64_t t, uint32_t peer, uint32_t comm, uint32_t tag,
                              uint64_t bytes, uint64_t request) {
  ORRERY_WRITE(OTF2_EvtWriter_MpiIsend(W(writer_), nullptr, t, peer, comm, tag, bytes, request));
}
void TestArchive::Rank::isend_complete(uint64_t t, uint64_t request) {
  ORRERY_WRITE(OTF2_EvtWriter_MpiIsendComplete(W(writer_), nullptr, t, request));
}
void TestArchive::Rank::recv(uint64_t t, uint32_t peer, uint32_t comm, uint32_t tag, uint64_t bytes) {
  ORRERY_WRITE(OTF2_EvtWriter_MpiRecv(W(writer_), nullptr, t, peer, comm, tag, bytes));
}
void TestArchive::Rank::irecv_request(uint64_t t, uint64_t request) {
  ORRERY_WRITE(OTF2_EvtWriter_MpiIrecvRequest(W(writer_), nullptr, t, request));
}
void TestArchive::Rank::irecv(uint64_t t, uint32_t peer, uint32_t comm, uint32_t tag,
                              uint64_t bytes, uint64_t request) {
  ORRERY_WRITE(OTF2_EvtWriter_MpiIrecv(W(writer_), nullptr, t, peer, comm, tag, bytes, request));
}
void TestArchive::Rank::program_begin(uint64_t t, uint32_t program) {
  ORRERY_WRITE(OTF2_EvtWriter_ProgramBegin(W(writer_), nullptr, t, program, 0, nullptr));
}
void TestArchive::Rank::program_end(uint64_t t, int64_t exit_status) {
  ORRERY_WRITE(OTF2_EvtWriter_ProgramEnd(W(writer_), nullptr, t, exit_status));
}
void TestArchive::Rank::buffer_flush(uint64_t t, uint64_t stop) {
  ORRERY_WRITE(OTF2_EvtWriter_BufferFlush(W(writer_), nullptr, t, stop));
}
void TestArchive::Rank::measurement(uint64_t t, bool on) {
  ORRERY_WRITE(OTF2_EvtWriter_MeasurementOnOff(
      W(writer_), nullptr, t, on ? OTF2_MEASUREMENT_ON : OTF2_MEASUREMENT_OFF));
}
void TestArchive::Rank::collective_begin(uint64_t t) {
  ORRERY_WRITE(OTF2_EvtWriter_MpiCollectiveBegin(W(writer_), nullptr, t));
}
void TestArchive::Rank::collective_end(uint64_t t, Collective op, uint32_t comm, uint32_t root,
                                       uint64_t sent, uint64_t received) {
  ORRERY_WRITE(OTF2_EvtWriter_MpiCollectiveEnd(W(writer_), nullptr, t,
                                               static_cast<OTF2_CollectiveOp>(op), comm, root,
                                               sent, received));
}
void TestArchive::Rank::nbc_request(uint64_t t, uint64_t request) {
  ORRERY_WRITE(OTF2_EvtWriter_NonBlockingCollectiveRequest(W(writer_), nullptr, t, request));
}
void TestArchive::Rank::nbc_complete(uint64_t t, Collective op, uint32_t comm, uint32_t root,
                                     uint64_t sent, uint64_t received, uint64_t request) {
  ORRERY_WRITE(OTF2_EvtWriter_NonBlockingCollectiveComplete(
      W(writer_), nullptr, t, static_cast<OTF2_CollectiveOp>(op), comm, root, sent, received,
      request));
}

void TestArchive::creator(const std::string& name) {
  check(OTF2_Archive_SetCreator(A(archive_), name.c_str()), "creator");
}

void TestArchive::close() {
  if (closed_) return;
  closed_ = true;
  uint64_t last = 0;
  for (uint32_t r = 0; r < ranks_; ++r) {
    last = std::max(last, rank_writers_[r].last_);
    check(OTF2_Archive_CloseEvtWriter(A(archive_), W(rank_writers_[r].writer_)), "close writer");
  }
  check(OTF2_Archive_CloseEvtFiles(A(archive_)), "close event files");
  check(OTF2_Archive_OpenDefFiles(A(archive_)), "open def files");
  for (uint32_t r = 0; r < ranks_; ++r) {
    OTF2_DefWriter* def_writer = OTF2_Archive_GetDefWriter(A(archive_), location_base_ + r);
    for (const auto& [time, offset] : offsets_[r]) {
      check(OTF2_DefWriter_WriteClockOffset(def_writer, time, offset, 0.0), "clock offset");
    }
    for (const MappingTable& table : mapping_tables_[r]) {
      OTF2_IdMap* map = nullptr;
      if (table.dense) {  // pairs (0, g0), (1, g1), ...
        std::vector<uint64_t> globals;
        for (const auto& pair : table.pairs) globals.push_back(pair.second);
        map = OTF2_IdMap_CreateFromUint64Array(globals.size(), globals.data(), false);
      } else {
        map = OTF2_IdMap_Create(OTF2_ID_MAP_SPARSE, table.pairs.size() + 1);
        for (const auto& [written, global] : table.pairs) {
          check(OTF2_IdMap_AddIdPair(map, written, global), "mapping pair");
        }
      }
      check(OTF2_DefWriter_WriteMappingTable(def_writer, static_cast<OTF2_MappingType>(table.kind), map),
            "mapping table");
      OTF2_IdMap_Free(map);
    }
    check(OTF2_Archive_CloseDefWriter(A(archive_), def_writer), "close def writer");
  }
  check(OTF2_Archive_CloseDefFiles(A(archive_)), "close def files");

  OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(A(archive_));
  const uint32_t machine = string("machine"), node = string("node"), host = string("testhost");
  const uint32_t comm_locations = string("MPI_COMM_WORLD locations");
  std::vector<uint32_t> rank_names, thread_names;
  for (uint32_t r = 0; r < ranks_; ++r) {
    rank_names.push_back(string("MPI Rank " + std::to_string(r)));
  }
  const uint32_t master = string("Master thread");
  check(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, last + 1, 0), "clock");
  for (uint32_t s = 0; s < string_list_.size(); ++s) {
    check(OTF2_GlobalDefWriter_WriteString(g, s, string_list_[s].c_str()), "string");
  }
  check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, machine, machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE), "node");
  check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 1, host, node, 0), "node");
  for (uint32_t r = 0; r < ranks_; ++r) {
    check(OTF2_GlobalDefWriter_WriteLocationGroup(g, r, rank_names[r],
                                                  OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
                                                  OTF2_UNDEFINED_LOCATION_GROUP),
          "location group");
  }
  for (uint32_t r = 0; r < ranks_; ++r) {
    check(OTF2_GlobalDefWriter_WriteLocation(g, location_base_ + r, master,
                                             OTF2_LOCATION_TYPE_CPU_THREAD,
                                             rank_writers_[r].events_, r),
          "location");
  }
  for (uint32_t i = 0; i < regions_.size(); ++i) {
    const RegionDef& def = regions_[i];
    check(OTF2_GlobalDefWriter_WriteRegion(g, i, def.name, def.name, 0,
                                           static_cast<OTF2_RegionRole>(def.role),
                                           static_cast<OTF2_Paradigm>(def.paradigm),
                                           OTF2_REGION_FLAG_NONE, 0, 0, 0),
          "region");
  }
  for (const auto& [id, name] : regions_with_ids_) {
    check(OTF2_GlobalDefWriter_WriteRegion(g, id, name, name, 0, OTF2_REGION_ROLE_FUNCTION,
                                           OTF2_PARADIGM_COMPILER, OTF2_REGION_FLAG_NONE, 0, 0, 0),
          "region");
  }
  std::vector<uint64_t> locations;
  for (uint32_t r = 0; r < ranks_; ++r) locations.push_back(location_base_ + r);
  check(OTF2_GlobalDefWriter_WriteGroup(g, 0, comm_locations, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, ranks_,
                                        locations.data()),
        "group");
  for (uint32_t c = 0; c < comms_.size(); ++c) {
    std::vector<uint64_t> members(comms_[c].members.begin(), comms_[c].members.end());
    check(OTF2_GlobalDefWriter_WriteGroup(g, c + 1, comms_[c].name, OTF2_GROUP_TYPE_COMM_GROUP,
                                          OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                          static_cast<uint32_t>(members.size()), members.data()),
          "group");
    check(OTF2_GlobalDefWriter_WriteComm(g, c, comms_[c].name, c + 1, OTF2_UNDEFINED_COMM,
                                         OTF2_COMM_FLAG_NONE),
          "comm");
  }
  check(OTF2_Archive_CloseGlobalDefWriter(A(archive_), g), "close global defs");
  check(OTF2_Archive_Close(A(archive_)), "close archive");
}

}  // namespace orrery::testing

#include "orrery/patterns/region_class.h"

#include <cctype>
#include <string>


namespace orrery::patterns {
namespace {

using analyzer::Paradigm;
using analyzer::RegionRole;

bool starts_with_any(std::string_view name, std::initializer_list<std::string_view> prefixes) {
  for (std::string_view prefix : prefixes) {
    if (name.starts_with(prefix)) return true;
  }
  return false;
}

bool is_any(std::string_view name, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names) {
    if (name == n) return true;
  }
  return false;
}

/// MPI_File_* calls that manage files rather than move data.
bool is_file_management(std::string_view op) {
  return is_any(op, {"File_open", "File_close", "File_delete", "File_set_size",
                     "File_preallocate", "File_set_view", "File_get_view", "File_set_info",
                     "File_get_info", "File_get_size", "File_get_group", "File_get_amode",
                     "File_set_atomicity", "File_get_atomicity", "File_sync",
                     "File_set_errhandler", "File_get_errhandler", "File_get_type_extent",
                     "File_get_byte_offset", "File_get_position", "File_get_position_shared",
                     "File_seek", "File_seek_shared", "File_c2f", "File_f2c"});
}

std::string_view mpi_category(std::string_view op, RegionRole role) {
  if (is_any(op, {"Init", "Init_thread", "Finalize"})) return "mpi_init_exit";
  if (is_any(op, {"Barrier", "Ibarrier"})) return "mpi_sync_collective";
  if (op.starts_with("File_")) return is_file_management(op) ? "mpi_management" : "mpi_io";
  if (is_any(op, {"Win_fence", "Win_post", "Win_start", "Win_complete", "Win_wait", "Win_test",
                  "Win_lock", "Win_unlock", "Win_lock_all", "Win_unlock_all", "Win_flush",
                  "Win_flush_all", "Win_flush_local", "Win_flush_local_all", "Win_sync"})) {
    return "mpi_rma_synchronization";
  }
  if (is_any(op, {"Put", "Get", "Accumulate", "Get_accumulate", "Fetch_and_op",
                  "Compare_and_swap", "Rput", "Rget", "Raccumulate", "Rget_accumulate"})) {
    return "mpi_rma_communication";
  }
  if (starts_with_any(op, {"Comm_", "Group_", "Type_", "Win_", "Cart_", "Graph_", "Dist_graph",
                           "Intercomm_", "Op_", "Info_", "Errhandler_", "Keyval_", "Attr_",
                           "Add_error", "Alloc_mem", "Free_mem", "Cartdim", "Graphdims",
                           "Topo_test", "Dims_create", "Buffer_"})) {
    return "mpi_management";
  }
  if (starts_with_any(op, {"Send", "Bsend", "Ssend", "Rsend", "Isend", "Ibsend", "Issend",
                           "Irsend", "Recv", "Irecv", "Sendrecv", "Start", "Wait", "Test",
                           "Probe", "Iprobe", "Mprobe", "Improbe", "Mrecv", "Imrecv",
                           "Request_", "Cancel"})) {
    return "mpi_point2point";
  }
  if (starts_with_any(op, {"Bcast", "Ibcast", "Reduce", "Ireduce", "Allreduce", "Iallreduce",
                           "Gather", "Igather", "Scatter", "Iscatter", "Allgather", "Iallgather",
                           "Alltoall", "Ialltoall", "Scan", "Iscan", "Exscan", "Iexscan",
                           "Neighbor_", "Ineighbor_"})) {
    return "mpi_collective";
  }
  // Unknown names: the trace's role still says what the call does.
  switch (role) {
    case RegionRole::kPointToPoint: return "mpi_point2point";
    case RegionRole::kBarrier: return "mpi_sync_collective";
    case RegionRole::kOneToAll: case RegionRole::kAllToOne: case RegionRole::kAllToAll:
    case RegionRole::kCollectiveOther: return "mpi_collective";
    case RegionRole::kFileIo: return "mpi_io";
    case RegionRole::kRma: return "mpi_rma_communication";
    default: return "mpi";
  }
}

bool is_flush_region(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("flush") != std::string::npos;
}

}  // namespace

std::string_view time_category(const analyzer::RegionDef& region, bool has_messages,
                               bool moves_data) {
  // The measurement's own regions: the program root (named after the
  // executable) is the program's computing time; only buffer flushes
  // (ORRERY_FLUSH, Score-P's "TRACE BUFFER FLUSH", OTF2 BufferFlush) are overhead.
  if (region.paradigm == Paradigm::kMeasurement) {
    return is_flush_region(region.name) ? "overhead" : "execution";
  }
  if (region.paradigm == Paradigm::kOpenmp) return "omp";
  const bool mpi_name = region.name.starts_with("MPI_");
  if (region.paradigm != Paradigm::kMpi && !mpi_name) return "execution";
  const std::string_view op = mpi_name ? std::string_view(region.name).substr(4) : region.name;
  const std::string_view category = mpi_category(op, region.role);
  // Point-to-point calls whose messages carried no data only synchronize.
  if (category == "mpi_point2point" && has_messages && !moves_data) return "mpi_synchronization";
  return category;
}

}  // namespace orrery::patterns

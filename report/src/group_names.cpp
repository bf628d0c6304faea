// The built-in function groups: what a function does, from its paradigm and
// name (orrery/report/groups.h, default_group_of).

#include <algorithm>
#include <array>
#include <initializer_list>

#include "orrery/report/groups.h"

namespace orrery::report {
namespace {

enum Top : std::size_t { kComputation, kPointToPoint, kCollective, kIo, kOther };

bool starts_with_any(const std::string& name, std::initializer_list<const char*> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](const char* prefix) { return name.rfind(prefix, 0) == 0; });
}

/// What a function does, from its paradigm and name.
Top top_group(const Region& region) {
  const std::string& name = region.name;
  if (region.paradigm == "mpi") {
    if (starts_with_any(name, {"MPI_File_"})) return kIo;
    if (starts_with_any(name, {"MPI_Send", "MPI_Bsend", "MPI_Ssend", "MPI_Rsend", "MPI_Isend",
                               "MPI_Ibsend", "MPI_Issend", "MPI_Irsend", "MPI_Recv", "MPI_Irecv",
                               "MPI_Sendrecv", "MPI_Wait", "MPI_Test", "MPI_Probe", "MPI_Iprobe",
                               "MPI_Mprobe", "MPI_Improbe", "MPI_Mrecv", "MPI_Imrecv",
                               "MPI_Start", "MPI_Cancel", "MPI_Request_free"})) {
      return kPointToPoint;
    }
    if (starts_with_any(name, {"MPI_Barrier", "MPI_Ibarrier", "MPI_Bcast", "MPI_Ibcast",
                               "MPI_Reduce", "MPI_Ireduce", "MPI_Allreduce", "MPI_Iallreduce",
                               "MPI_Gather", "MPI_Igather", "MPI_Scatter", "MPI_Iscatter",
                               "MPI_Allgather", "MPI_Iallgather", "MPI_Alltoall",
                               "MPI_Ialltoall", "MPI_Scan", "MPI_Iscan", "MPI_Exscan",
                               "MPI_Iexscan", "MPI_Neighbor_", "MPI_Ineighbor_"})) {
      return kCollective;
    }
    return kOther;
  }
  if (region.paradigm == "measurement" || region.paradigm == "openmp") return kOther;
  static const std::array<const char*, 16> io = {"read",   "write",  "pread", "pwrite",
                                                 "readv",  "writev", "open",  "open64",
                                                 "close",  "fopen",  "fclose", "fread",
                                                 "fwrite", "fflush", "fsync", "lseek"};
  if (std::find(io.begin(), io.end(), name) != io.end()) return kIo;
  return kComputation;
}

/// Whether `file` names a real source file: MPI, OpenMP and POSIX-threads
/// regions carry the pseudo file names "MPI", "OMP", "PTHREAD" (Score-P's
/// convention, docs/trace-conventions.md).
bool is_source_file(const std::string& file) {
  return !file.empty() && file != "MPI" && file != "OMP" && file != "PTHREAD";
}

/// The default second-level group of a function in its top group.
std::string second_group(const Region& region, Top top) {
  if (is_source_file(region.file)) return region.file;
  if (top == kPointToPoint || top == kCollective || top == kIo || region.paradigm == "mpi") {
    return region.name;
  }
  return "(no source file)";
}

}  // namespace

std::pair<std::string, std::string> default_group_of(const Region& region) {
  const Top top = top_group(region);
  return {kBuiltinTopGroups[top], second_group(region, top)};
}

}  // namespace orrery::report

#include "recorder.h"

namespace orrery::measure {

RecorderState g_state;
std::atomic<uint64_t> g_other_thread_events{0};
std::atomic<uint64_t> g_other_thread_mpi_calls{0};
constinit thread_local int t_depth __attribute__((tls_model("initial-exec"))) = 0;
constinit thread_local bool t_is_recorder __attribute__((tls_model("initial-exec"))) = false;

RegionRole mpi_region_role(const FunctionInfo& info) noexcept {
  switch (info.category) {
    case Category::kColl:
    case Category::kIcoll:
      switch (info.op) {
        case CollOp::kBarrier: return RegionRole::kBarrier;
        case CollOp::kBcast:
        case CollOp::kScatter:
        case CollOp::kScatterv: return RegionRole::kOneToAll;
        case CollOp::kGather:
        case CollOp::kGatherv:
        case CollOp::kReduce: return RegionRole::kAllToOne;
        case CollOp::kScan:
        case CollOp::kExscan: return RegionRole::kCollectiveOther;
        default: return RegionRole::kAllToAll;
      }
    case Category::kRma:
    case Category::kRmaSync: return RegionRole::kRma;
    case Category::kIo: return RegionRole::kFileIo;
    case Category::kMgmt:
    case Category::kCommNew:
    case Category::kCommFree:
    case Category::kQuery:
    case Category::kSpecial: return RegionRole::kFunction;
    default: return RegionRole::kPointToPoint;
  }
}


uint32_t define_mpi_region(FunctionId fn) noexcept {
  uint32_t& region = g_state.fn_region[fn];
  if (region == UINT32_MAX) {
    try {
      const FunctionInfo& info = kFunctions[fn];
      RegionDef def;
      def.name = info.name;
      // Score-P's convention, which Scalasca's reader relies on to tell an MPI
      // region (and which one) apart: the source file is the string "MPI".
      def.file = kMpiSourceFile;
      def.paradigm = Paradigm::kMpi;
      def.role = mpi_region_role(info);
      region = g_state.definitions.add_region(std::move(def));
    } catch (...) {
      region = g_state.flush_region;  // out of memory: better a wrong name than a crash
    }
  }
  return region;
}

}  // namespace orrery::measure

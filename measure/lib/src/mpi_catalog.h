#pragma once
// What the library knows about each wrapped MPI function. The table itself is
// generated from measure/lib/mpi_functions.txt (mpi_catalog.cpp in the build
// directory); this header gives it a type.

#include <cstddef>
#include <cstdint>

namespace orrery::measure {

/// What a wrapper's handler does with the call (one per table category).
enum class Category : uint8_t {
  kSend, kRecv, kSendrecv, kIsend, kIrecv, kSendInit, kRecvInit, kStart, kStartall,
  kWait, kTest, kWaitall, kTestall, kWaitany, kTestany, kWaitsome, kTestsome,
  kProbe, kIprobe, kMprobe, kImprobe, kMrecv, kImrecv, kRequestFree, kCancel,
  kColl, kIcoll, kCommNew, kCommFree, kMgmt, kRma, kRmaSync, kIo, kQuery, kSpecial,
};

/// Collective operations, including the neighborhood ones OTF2 has no name for.
enum class CollOp : uint8_t {
  kNone, kBarrier, kBcast, kGather, kGatherv, kScatter, kScatterv, kAllgather,
  kAllgatherv, kAlltoall, kAlltoallv, kAlltoallw, kReduce, kAllreduce, kReduceScatter,
  kReduceScatterBlock, kScan, kExscan, kNeighborAllgather, kNeighborAllgatherv,
  kNeighborAlltoall, kNeighborAlltoallv, kNeighborAlltoallw,
};

/// One row of the function table.
struct FunctionInfo {
  const char* name;
  Category category;
  CollOp op;
};

extern const FunctionInfo kFunctions[];
extern const std::size_t kFunctionCount;

using FunctionId = uint16_t;

/// Calls that only complete something when they succeed: their Enter is deferred
/// until the handler knows whether the call is worth an event.
constexpr bool is_deferred(Category c) noexcept {
  return c == Category::kTest || c == Category::kTestall || c == Category::kTestany ||
         c == Category::kTestsome || c == Category::kIprobe || c == Category::kImprobe;
}

}  // namespace orrery::measure

// The bytes and roots of collective calls (collective_bytes.h), and the
// peer counts of (neighbourhood) collectives.

#include "collective_bytes.h"

namespace orrery::measure {
namespace {

uint64_t sum(const int* counts, int n) noexcept {
  uint64_t total = 0;
  for (int i = 0; counts != nullptr && i < n; ++i) total += counts[i] > 0 ? static_cast<uint64_t>(counts[i]) : 0;
  return total;
}

uint64_t typed_sum(const int* counts, const MPI_Datatype* types, int n) noexcept {
  uint64_t total = 0;
  for (int i = 0; counts != nullptr && types != nullptr && i < n; ++i) total += bytes_of(counts[i], types[i]);
  return total;
}

void neighbor_degrees(MPI_Comm comm, int& in, int& out) noexcept {
  in = out = 0;
  int topology = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &topology);
  if (topology == MPI_CART) {
    int dims = 0;
    PMPI_Cartdim_get(comm, &dims);
    in = out = 2 * dims;
  } else if (topology == MPI_GRAPH) {
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Graph_neighbors_count(comm, rank, &in);
    out = in;
  } else if (topology == MPI_DIST_GRAPH) {
    int weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
  }
}

}  // namespace

CollectiveBytes collective_bytes(CollOp op, const MpiArgs& a) noexcept {
  CollectiveBytes c;
  int n = 1;
  int me = 0;
  PMPI_Comm_size(a.comm, &n);
  PMPI_Comm_rank(a.comm, &me);
  const bool in_place = a.sbuf == MPI_IN_PLACE;
  const bool is_root = a.root == me;
  const uint64_t un = static_cast<uint64_t>(n);
  if (a.root >= 0) c.root = static_cast<uint32_t>(a.root);
  int in = 0;
  int out = 0;
  switch (op) {
    case CollOp::kNone:
    case CollOp::kBarrier: break;
    case CollOp::kBcast:
      c.op = OTF2_COLLECTIVE_OP_BCAST;
      (is_root ? c.sent : c.received) = bytes_of(a.scount, a.stype);
      break;
    case CollOp::kGather:
    case CollOp::kGatherv:
      c.op = op == CollOp::kGather ? OTF2_COLLECTIVE_OP_GATHER : OTF2_COLLECTIVE_OP_GATHERV;
      if (!in_place) c.sent = bytes_of(a.scount, a.stype);
      if (is_root) {
        c.received = op == CollOp::kGather ? un * bytes_of(a.rcount, a.rtype) : sum(a.rcounts, n) * type_size(a.rtype);
      }
      break;
    case CollOp::kScatter:
    case CollOp::kScatterv:
      c.op = op == CollOp::kScatter ? OTF2_COLLECTIVE_OP_SCATTER : OTF2_COLLECTIVE_OP_SCATTERV;
      if (is_root) {
        c.sent = op == CollOp::kScatter ? un * bytes_of(a.scount, a.stype) : sum(a.scounts, n) * type_size(a.stype);
      }
      if (!(is_root && a.rbuf == MPI_IN_PLACE)) c.received = bytes_of(a.rcount, a.rtype);
      break;
    case CollOp::kAllgather:
      c.op = OTF2_COLLECTIVE_OP_ALLGATHER;
      c.sent = in_place ? bytes_of(a.rcount, a.rtype) : bytes_of(a.scount, a.stype);
      c.received = un * bytes_of(a.rcount, a.rtype);
      break;
    case CollOp::kAllgatherv:
      c.op = OTF2_COLLECTIVE_OP_ALLGATHERV;
      c.sent = in_place ? (a.rcounts ? bytes_of(a.rcounts[me], a.rtype) : 0) : bytes_of(a.scount, a.stype);
      c.received = sum(a.rcounts, n) * type_size(a.rtype);
      break;
    case CollOp::kAlltoall:
      c.op = OTF2_COLLECTIVE_OP_ALLTOALL;
      c.received = un * bytes_of(a.rcount, a.rtype);
      c.sent = in_place ? c.received : un * bytes_of(a.scount, a.stype);
      break;
    case CollOp::kAlltoallv:
      c.op = OTF2_COLLECTIVE_OP_ALLTOALLV;
      c.received = sum(a.rcounts, n) * type_size(a.rtype);
      c.sent = in_place ? c.received : sum(a.scounts, n) * type_size(a.stype);
      break;
    case CollOp::kAlltoallw:
      c.op = OTF2_COLLECTIVE_OP_ALLTOALLW;
      c.received = typed_sum(a.rcounts, a.rtypes, n);
      c.sent = in_place ? c.received : typed_sum(a.scounts, a.stypes, n);
      break;
    case CollOp::kReduce:
      c.op = OTF2_COLLECTIVE_OP_REDUCE;
      c.sent = bytes_of(a.scount, a.stype);
      if (is_root) c.received = c.sent;
      break;
    case CollOp::kAllreduce:
    case CollOp::kScan:
    case CollOp::kExscan:
      c.op = op == CollOp::kAllreduce ? OTF2_COLLECTIVE_OP_ALLREDUCE
             : op == CollOp::kScan    ? OTF2_COLLECTIVE_OP_SCAN
                                      : OTF2_COLLECTIVE_OP_EXSCAN;
      c.sent = c.received = bytes_of(a.scount, a.stype);
      break;
    case CollOp::kReduceScatter:
      c.op = OTF2_COLLECTIVE_OP_REDUCE_SCATTER;
      c.sent = sum(a.rcounts, n) * type_size(a.stype);
      c.received = a.rcounts ? bytes_of(a.rcounts[me], a.stype) : 0;
      break;
    case CollOp::kReduceScatterBlock:
      c.op = OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK;
      c.received = bytes_of(a.rcount, a.stype);
      c.sent = un * c.received;
      break;
    case CollOp::kNeighborAllgather:
    case CollOp::kNeighborAlltoall:
      neighbor_degrees(a.comm, in, out);
      c.op = op == CollOp::kNeighborAllgather ? OTF2_COLLECTIVE_OP_ALLGATHER : OTF2_COLLECTIVE_OP_ALLTOALL;
      c.sent = static_cast<uint64_t>(op == CollOp::kNeighborAllgather ? 1 : out) * bytes_of(a.scount, a.stype);
      c.received = static_cast<uint64_t>(in) * bytes_of(a.rcount, a.rtype);
      break;
    case CollOp::kNeighborAllgatherv:
      neighbor_degrees(a.comm, in, out);
      c.op = OTF2_COLLECTIVE_OP_ALLGATHERV;
      c.sent = bytes_of(a.scount, a.stype);
      c.received = sum(a.rcounts, in) * type_size(a.rtype);
      break;
    case CollOp::kNeighborAlltoallv:
      neighbor_degrees(a.comm, in, out);
      c.op = OTF2_COLLECTIVE_OP_ALLTOALLV;
      c.sent = sum(a.scounts, out) * type_size(a.stype);
      c.received = sum(a.rcounts, in) * type_size(a.rtype);
      break;
    case CollOp::kNeighborAlltoallw:
      neighbor_degrees(a.comm, in, out);
      c.op = OTF2_COLLECTIVE_OP_ALLTOALLW;
      c.sent = typed_sum(a.scounts, a.stypes, out);
      c.received = typed_sum(a.rcounts, a.rtypes, in);
      break;
  }
  return c;
}

int peer_count(MPI_Comm comm, bool neighborhood) noexcept {
  int n = 0;
  if (neighborhood) {
    int in = 0;
    int out = 0;
    neighbor_degrees(comm, in, out);
    return in > out ? in : out;
  }
  PMPI_Comm_size(comm, &n);
  return n;
}

}  // namespace orrery::measure

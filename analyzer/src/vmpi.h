#pragma once
// The replays' communication, addressed by traced rank ("virtual MPI").
//
// The replays are SPMD code over MPI communicators. With one analysis process
// per traced rank (`mpirun -np N`) every call here forwards inline to the MPI
// function of the same name: one predictable branch on a process-wide flag,
// nothing else. With fewer analysis processes than traced ranks (`-np M`,
// M < N) each process hosts a contiguous block of traced ranks, one thread
// each (block_host.h); the handles (MPI_Comm, MPI_Group, MPI_Request) are then
// the block layer's own objects, and these calls go to it (vmpi_block.h).
//
// Only the calls the replays use are here, with MPI's signatures, so that
// porting a replay is renaming `MPI_X(` to `vmpi::X(`. Purely local MPI calls
// (MPI_Type_size, MPI_Type_contiguous, MPI_Op_create, MPI_Get_count on a
// status filled here) stay MPI's own.

#include <mpi.h>

namespace orrery::vmpi {

namespace block {
/// Set while this process hosts a block of traced ranks (block_host.h).
extern bool active;

int comm_rank(MPI_Comm comm, int* rank);
int comm_size(MPI_Comm comm, int* size);
int comm_dup(MPI_Comm comm, MPI_Comm* out);
int comm_free(MPI_Comm* comm);
int comm_group(MPI_Comm comm, MPI_Group* group);
int group_incl(MPI_Group group, int n, const int* ranks, MPI_Group* out);
int group_free(MPI_Group* group);
int comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* out);
int comm_get_attr(MPI_Comm comm, int key, void* value, int* flag);
int dist_graph_create(MPI_Comm comm, int n, const int* sources, const int* degrees,
                      const int* destinations, MPI_Comm* out);
int dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted);
int neighbor_allgather(const void* send, int send_count, MPI_Datatype send_type, void* recv,
                       int recv_count, MPI_Datatype recv_type, MPI_Comm comm);

int send(const void* data, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int isend(const void* data, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
          MPI_Request* request, bool synchronous);
int recv(void* data, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
         MPI_Status* status);
int irecv(void* data, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
          MPI_Request* request);
int probe(int source, int tag, MPI_Comm comm, MPI_Status* status);
int iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status);
int test(MPI_Request* request, int* flag, MPI_Status* status);
int testall(int n, MPI_Request* requests, int* flag, MPI_Status* statuses);
int testsome(int n, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses);
int waitall(int n, MPI_Request* requests, MPI_Status* statuses);

/// The collectives; `request` null for the blocking form.
enum class Op { kBarrier, kBcast, kReduce, kAllreduce, kScan, kExscan, kGather, kAllgather };
struct CollectiveArgs {
  Op op;
  const void* send = nullptr;
  void* recv = nullptr;
  int count = 0;  ///< elements contributed (Gather(v)/Allgather(v): this rank's)
  MPI_Datatype type = MPI_BYTE;
  MPI_Op reduction = MPI_OP_NULL;
  int root = 0;
  const int* recv_counts = nullptr;  ///< Gather(v)/Allgather(v); null: `count` from each
  const int* displacements = nullptr;
};
int collective(const CollectiveArgs& args, MPI_Comm comm, MPI_Request* request);
[[noreturn]] void abort(int code);
}  // namespace block

// Communicators and groups.
inline int Comm_rank(MPI_Comm comm, int* rank) {
  return block::active ? block::comm_rank(comm, rank) : MPI_Comm_rank(comm, rank);
}
inline int Comm_size(MPI_Comm comm, int* size) {
  return block::active ? block::comm_size(comm, size) : MPI_Comm_size(comm, size);
}
inline int Comm_dup(MPI_Comm comm, MPI_Comm* out) {
  return block::active ? block::comm_dup(comm, out) : MPI_Comm_dup(comm, out);
}
inline int Comm_free(MPI_Comm* comm) {
  return block::active ? block::comm_free(comm) : MPI_Comm_free(comm);
}
inline int Comm_group(MPI_Comm comm, MPI_Group* group) {
  return block::active ? block::comm_group(comm, group) : MPI_Comm_group(comm, group);
}
inline int Group_incl(MPI_Group group, int n, const int* ranks, MPI_Group* out) {
  return block::active ? block::group_incl(group, n, ranks, out)
                       : MPI_Group_incl(group, n, ranks, out);
}
inline int Group_free(MPI_Group* group) {
  return block::active ? block::group_free(group) : MPI_Group_free(group);
}
inline int Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* out) {
  return block::active ? block::comm_create_group(comm, group, tag, out)
                       : MPI_Comm_create_group(comm, group, tag, out);
}
inline int Comm_get_attr(MPI_Comm comm, int key, void* value, int* flag) {
  return block::active ? block::comm_get_attr(comm, key, value, flag)
                       : MPI_Comm_get_attr(comm, key, value, flag);
}
inline int Dist_graph_create(MPI_Comm comm, int n, const int* sources, const int* degrees,
                             const int* destinations, const int* weights, MPI_Info info,
                             int reorder, MPI_Comm* out) {
  return block::active
             ? block::dist_graph_create(comm, n, sources, degrees, destinations, out)
             : MPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info,
                                     reorder, out);
}
inline int Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree,
                                      int* weighted) {
  return block::active ? block::dist_graph_neighbors_count(comm, indegree, outdegree, weighted)
                       : MPI_Dist_graph_neighbors_count(comm, indegree, outdegree, weighted);
}
inline int Neighbor_allgather(const void* send, int send_count, MPI_Datatype send_type,
                              void* recv, int recv_count, MPI_Datatype recv_type,
                              MPI_Comm comm) {
  return block::active ? block::neighbor_allgather(send, send_count, send_type, recv, recv_count,
                                                   recv_type, comm)
                       : MPI_Neighbor_allgather(send, send_count, send_type, recv, recv_count,
                                                recv_type, comm);
}
[[noreturn]] inline void Abort(MPI_Comm comm, int code) {
  if (block::active) block::abort(code);
  MPI_Abort(comm, code);
  __builtin_unreachable();
}

// Point to point.
inline int Send(const void* data, int count, MPI_Datatype type, int dest, int tag,
                MPI_Comm comm) {
  return block::active ? block::send(data, count, type, dest, tag, comm)
                       : MPI_Send(data, count, type, dest, tag, comm);
}
inline int Isend(const void* data, int count, MPI_Datatype type, int dest, int tag,
                 MPI_Comm comm, MPI_Request* request) {
  return block::active ? block::isend(data, count, type, dest, tag, comm, request, false)
                       : MPI_Isend(data, count, type, dest, tag, comm, request);
}
inline int Issend(const void* data, int count, MPI_Datatype type, int dest, int tag,
                  MPI_Comm comm, MPI_Request* request) {
  return block::active ? block::isend(data, count, type, dest, tag, comm, request, true)
                       : MPI_Issend(data, count, type, dest, tag, comm, request);
}
inline int Recv(void* data, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                MPI_Status* status) {
  return block::active ? block::recv(data, count, type, source, tag, comm, status)
                       : MPI_Recv(data, count, type, source, tag, comm, status);
}
inline int Irecv(void* data, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                 MPI_Request* request) {
  return block::active ? block::irecv(data, count, type, source, tag, comm, request)
                       : MPI_Irecv(data, count, type, source, tag, comm, request);
}
inline int Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return block::active ? block::probe(source, tag, comm, status)
                       : MPI_Probe(source, tag, comm, status);
}
inline int Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  return block::active ? block::iprobe(source, tag, comm, flag, status)
                       : MPI_Iprobe(source, tag, comm, flag, status);
}
inline int Test(MPI_Request* request, int* flag, MPI_Status* status) {
  return block::active ? block::test(request, flag, status) : MPI_Test(request, flag, status);
}
inline int Testall(int n, MPI_Request* requests, int* flag, MPI_Status* statuses) {
  return block::active ? block::testall(n, requests, flag, statuses)
                       : MPI_Testall(n, requests, flag, statuses);
}
inline int Testsome(int n, MPI_Request* requests, int* outcount, int* indices,
                    MPI_Status* statuses) {
  return block::active ? block::testsome(n, requests, outcount, indices, statuses)
                       : MPI_Testsome(n, requests, outcount, indices, statuses);
}
inline int Waitall(int n, MPI_Request* requests, MPI_Status* statuses) {
  return block::active ? block::waitall(n, requests, statuses)
                       : MPI_Waitall(n, requests, statuses);
}

// Collectives.
inline int Barrier(MPI_Comm comm) {
  return block::active ? block::collective({block::Op::kBarrier}, comm, nullptr)
                       : MPI_Barrier(comm);
}
inline int Ibarrier(MPI_Comm comm, MPI_Request* request) {
  return block::active ? block::collective({block::Op::kBarrier}, comm, request)
                       : MPI_Ibarrier(comm, request);
}
inline int Bcast(void* data, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return block::active ? block::collective({block::Op::kBcast, data, data, count, type,
                                            MPI_OP_NULL, root},
                                           comm, nullptr)
                       : MPI_Bcast(data, count, type, root, comm);
}
inline int Ibcast(void* data, int count, MPI_Datatype type, int root, MPI_Comm comm,
                  MPI_Request* request) {
  return block::active ? block::collective({block::Op::kBcast, data, data, count, type,
                                            MPI_OP_NULL, root},
                                           comm, request)
                       : MPI_Ibcast(data, count, type, root, comm, request);
}
inline int Reduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, int root,
                  MPI_Comm comm) {
  return block::active ? block::collective({block::Op::kReduce, send, recv, count, type, op, root},
                                           comm, nullptr)
                       : MPI_Reduce(send, recv, count, type, op, root, comm);
}
inline int Ireduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
                   int root, MPI_Comm comm, MPI_Request* request) {
  return block::active ? block::collective({block::Op::kReduce, send, recv, count, type, op, root},
                                           comm, request)
                       : MPI_Ireduce(send, recv, count, type, op, root, comm, request);
}
inline int Allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
                     MPI_Comm comm) {
  return block::active
             ? block::collective({block::Op::kAllreduce, send, recv, count, type, op}, comm,
                                 nullptr)
             : MPI_Allreduce(send, recv, count, type, op, comm);
}
inline int Iallreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
                      MPI_Comm comm, MPI_Request* request) {
  return block::active
             ? block::collective({block::Op::kAllreduce, send, recv, count, type, op}, comm,
                                 request)
             : MPI_Iallreduce(send, recv, count, type, op, comm, request);
}
inline int Scan(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm) {
  return block::active
             ? block::collective({block::Op::kScan, send, recv, count, type, op}, comm, nullptr)
             : MPI_Scan(send, recv, count, type, op, comm);
}
inline int Iscan(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
                 MPI_Comm comm, MPI_Request* request) {
  return block::active
             ? block::collective({block::Op::kScan, send, recv, count, type, op}, comm, request)
             : MPI_Iscan(send, recv, count, type, op, comm, request);
}
inline int Exscan(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  return block::active
             ? block::collective({block::Op::kExscan, send, recv, count, type, op}, comm, nullptr)
             : MPI_Exscan(send, recv, count, type, op, comm);
}
inline int Iexscan(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request* request) {
  return block::active
             ? block::collective({block::Op::kExscan, send, recv, count, type, op}, comm, request)
             : MPI_Iexscan(send, recv, count, type, op, comm, request);
}
inline int Gather(const void* send, int send_count, MPI_Datatype send_type, void* recv,
                  int recv_count, MPI_Datatype recv_type, int root, MPI_Comm comm) {
  (void)recv_count;
  (void)recv_type;
  return block::active ? block::collective({block::Op::kGather, send, recv, send_count, send_type,
                                            MPI_OP_NULL, root},
                                           comm, nullptr)
                       : MPI_Gather(send, send_count, send_type, recv, recv_count, recv_type, root,
                                    comm);
}
inline int Gatherv(const void* send, int send_count, MPI_Datatype send_type, void* recv,
                   const int* recv_counts, const int* displacements, MPI_Datatype recv_type,
                   int root, MPI_Comm comm) {
  return block::active ? block::collective({block::Op::kGather, send, recv, send_count, send_type,
                                            MPI_OP_NULL, root, recv_counts, displacements},
                                           comm, nullptr)
                       : MPI_Gatherv(send, send_count, send_type, recv, recv_counts, displacements,
                                     recv_type, root, comm);
}
inline int Allgather(const void* send, int send_count, MPI_Datatype send_type, void* recv,
                     int recv_count, MPI_Datatype recv_type, MPI_Comm comm) {
  return block::active ? block::collective({block::Op::kAllgather, send, recv, send_count,
                                            send_type},
                                           comm, nullptr)
                       : MPI_Allgather(send, send_count, send_type, recv, recv_count, recv_type,
                                       comm);
}
inline int Allgatherv(const void* send, int send_count, MPI_Datatype send_type, void* recv,
                      const int* recv_counts, const int* displacements, MPI_Datatype recv_type,
                      MPI_Comm comm) {
  return block::active ? block::collective({block::Op::kAllgather, send, recv, send_count,
                                            send_type, MPI_OP_NULL, 0, recv_counts, displacements},
                                           comm, nullptr)
                       : MPI_Allgatherv(send, send_count, send_type, recv, recv_counts,
                                        displacements, recv_type, comm);
}

}  // namespace orrery::vmpi

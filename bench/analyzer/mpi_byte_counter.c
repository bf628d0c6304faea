/* A PMPI layer for the weak-scaling benchmark (bench/analyzer/weak_scaling.py):
 * LD_PRELOADed into orrery-analyze, it counts the bytes every MPI call
 * delivers into this process's buffers (what the process receives through
 * MPI, at the interface: the receive buffer of point-to-point calls, the
 * result of collectives), and the CPU time spent inside MPI (which, on an
 * oversubscribed node, is mostly polling while another rank has the core).
 * At MPI_Finalize it writes one line per rank to
 * $ORRERY_BYTE_COUNTER_DIR/rank-<world rank>.txt:
 *   bytes=B calls=C cpu=S cpu_in_mpi=S rss_kb=K
 * It wraps every data-delivering and every blocking MPI function that
 * orrery-analyze calls (grep the analyzer for MPI_ when it starts calling a
 * new one). It shares no code with the analyzer. */

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static uint64_t received_bytes;
static uint64_t delivering_calls;
static double cpu_in_mpi;

static double process_cpu(void) {
  struct timespec now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* Runs the PMPI call `call`, adding the CPU time it took to cpu_in_mpi. */
#define TIMED(call)                          \
  do {                                       \
    const double started_ = process_cpu();   \
    const int rc_ = (call);                  \
    cpu_in_mpi += process_cpu() - started_;  \
    return rc_;                              \
  } while (0)

static uint64_t type_bytes(MPI_Datatype type, int count) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return (uint64_t)size * (uint64_t)(count < 0 ? 0 : count);
}

static int comm_size(MPI_Comm comm) {
  int size = 0;
  PMPI_Comm_size(comm, &size);
  return size;
}

static int comm_rank(MPI_Comm comm) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  return rank;
}

static void count(uint64_t bytes) {
  received_bytes += bytes;
  ++delivering_calls;
}

int MPI_Recv(void* buf, int n, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  MPI_Status own;
  MPI_Status* used = status == MPI_STATUS_IGNORE ? &own : status;
  const double started = process_cpu();
  const int rc = PMPI_Recv(buf, n, type, source, tag, comm, used);
  cpu_in_mpi += process_cpu() - started;
  int got = 0;
  PMPI_Get_count(used, type, &got);
  count(type_bytes(type, got));
  return rc;
}

/* The analyzer posts receives of exactly the size that arrives. */
int MPI_Irecv(void* buf, int n, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
  count(type_bytes(type, n));
  TIMED(PMPI_Irecv(buf, n, type, source, tag, comm, request));
}

int MPI_Bcast(void* buf, int n, MPI_Datatype type, int root, MPI_Comm comm) {
  if (comm_rank(comm) != root) count(type_bytes(type, n));
  TIMED(PMPI_Bcast(buf, n, type, root, comm));
}

int MPI_Reduce(const void* in, void* out, int n, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm) {
  if (comm_rank(comm) == root) count(type_bytes(type, n));
  TIMED(PMPI_Reduce(in, out, n, type, op, root, comm));
}

int MPI_Allreduce(const void* in, void* out, int n, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  count(type_bytes(type, n));
  TIMED(PMPI_Allreduce(in, out, n, type, op, comm));
}

int MPI_Scan(const void* in, void* out, int n, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  count(type_bytes(type, n));
  TIMED(PMPI_Scan(in, out, n, type, op, comm));
}

int MPI_Exscan(const void* in, void* out, int n, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  count(type_bytes(type, n));
  TIMED(PMPI_Exscan(in, out, n, type, op, comm));
}

int MPI_Gather(const void* in, int n_in, MPI_Datatype type_in, void* out, int n_out,
               MPI_Datatype type_out, int root, MPI_Comm comm) {
  if (comm_rank(comm) == root) count(type_bytes(type_out, n_out) * (uint64_t)comm_size(comm));
  TIMED(PMPI_Gather(in, n_in, type_in, out, n_out, type_out, root, comm));
}

static uint64_t sum_counts(const int* counts, MPI_Datatype type, MPI_Comm comm) {
  uint64_t bytes = 0;
  const int size = comm_size(comm);
  for (int r = 0; r < size; ++r) bytes += type_bytes(type, counts[r]);
  return bytes;
}

int MPI_Gatherv(const void* in, int n_in, MPI_Datatype type_in, void* out, const int* counts,
                const int* displs, MPI_Datatype type_out, int root, MPI_Comm comm) {
  if (comm_rank(comm) == root) count(sum_counts(counts, type_out, comm));
  TIMED(PMPI_Gatherv(in, n_in, type_in, out, counts, displs, type_out, root, comm));
}

int MPI_Allgather(const void* in, int n_in, MPI_Datatype type_in, void* out, int n_out,
                  MPI_Datatype type_out, MPI_Comm comm) {
  count(type_bytes(type_out, n_out) * (uint64_t)comm_size(comm));
  TIMED(PMPI_Allgather(in, n_in, type_in, out, n_out, type_out, comm));
}

int MPI_Allgatherv(const void* in, int n_in, MPI_Datatype type_in, void* out, const int* counts,
                   const int* displs, MPI_Datatype type_out, MPI_Comm comm) {
  count(sum_counts(counts, type_out, comm));
  TIMED(PMPI_Allgatherv(in, n_in, type_in, out, counts, displs, type_out, comm));
}

int MPI_Alltoall(const void* in, int n_in, MPI_Datatype type_in, void* out, int n_out,
                 MPI_Datatype type_out, MPI_Comm comm) {
  count(type_bytes(type_out, n_out) * (uint64_t)comm_size(comm));
  TIMED(PMPI_Alltoall(in, n_in, type_in, out, n_out, type_out, comm));
}

int MPI_Alltoallv(const void* in, const int* n_in, const int* d_in, MPI_Datatype type_in,
                  void* out, const int* n_out, const int* d_out, MPI_Datatype type_out,
                  MPI_Comm comm) {
  count(sum_counts(n_out, type_out, comm));
  TIMED(PMPI_Alltoallv(in, n_in, d_in, type_in, out, n_out, d_out, type_out, comm));
}

/* Start-up and blocking or polling calls that deliver no data: timed only. */
int MPI_Init(int* argc, char*** argv) { TIMED(PMPI_Init(argc, argv)); }
int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  TIMED(PMPI_Init_thread(argc, argv, required, provided));
}
int MPI_Waitall(int n, MPI_Request* requests, MPI_Status* statuses) {
  TIMED(PMPI_Waitall(n, requests, statuses));
}
int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  TIMED(PMPI_Test(request, flag, status));
}
int MPI_Testall(int n, MPI_Request* requests, int* flag, MPI_Status* statuses) {
  TIMED(PMPI_Testall(n, requests, flag, statuses));
}
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  TIMED(PMPI_Iprobe(source, tag, comm, flag, status));
}
int MPI_Barrier(MPI_Comm comm) { TIMED(PMPI_Barrier(comm)); }
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* copy) { TIMED(PMPI_Comm_dup(comm, copy)); }
int MPI_Comm_free(MPI_Comm* comm) { TIMED(PMPI_Comm_free(comm)); }
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* created) {
  TIMED(PMPI_Comm_create_group(comm, group, tag, created));
}

int MPI_Finalize(void) {
  const char* dir = getenv("ORRERY_BYTE_COUNTER_DIR");
  if (dir != NULL) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    const double cpu = (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec * 1e-6 +
                       (double)usage.ru_stime.tv_sec + (double)usage.ru_stime.tv_usec * 1e-6;
    char path[4096];
    snprintf(path, sizeof path, "%s/rank-%d.txt", dir, comm_rank(MPI_COMM_WORLD));
    FILE* out = fopen(path, "w");
    if (out != NULL) {
      fprintf(out, "bytes=%llu calls=%llu cpu=%.6f cpu_in_mpi=%.6f rss_kb=%ld\n",
              (unsigned long long)received_bytes, (unsigned long long)delivering_calls, cpu,
              cpu_in_mpi, usage.ru_maxrss);
      fclose(out);
    }
  }
  return PMPI_Finalize();
}

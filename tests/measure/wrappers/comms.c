/* Communicators: split (two colors), dup, create (a subset), cart_sub, and a
 * freed handle being reused. Every event must name a communicator whose group
 * holds exactly the world ranks the program itself sees in it. */
#include "expect.h"
#include <string.h>

static int rank, size;

/* "a,b,c": the world ranks of `comm` in its rank order, as the program sees them. */
static void members(MPI_Comm comm, char* text) {
  MPI_Group group, world;
  int n = 0, ranks[64], world_ranks[64];
  MPI_Comm_group(comm, &group);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_size(group, &n);
  for (int i = 0; i < n; ++i) ranks[i] = i;
  MPI_Group_translate_ranks(group, n, ranks, world, world_ranks);
  text[0] = '\0';
  for (int i = 0; i < n; ++i) sprintf(text + strlen(text), i ? ",%d" : "%d", world_ranks[i]);
  MPI_Group_free(&group);
  MPI_Group_free(&world);
}

/* A message around the ring of `comm` with `tag`, and a barrier on it. */
static void use(MPI_Comm comm, int tag, const char* name) {
  int n, me, in = -1;
  char text[512];
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &me);
  members(comm, text);
  MPI_Sendrecv(&me, 1, MPI_INT, (me + 1) % n, tag, &in, 1, MPI_INT, (me + n - 1) % n, tag, comm, MPI_STATUS_IGNORE);
  MPI_Barrier(comm);
  expect("1 MPI_SEND Tag=%d Receiver=%d CommMembers=%s CommName=%s", tag, (me + 1) % n, text, name);
  expect("1 MPI_RECV Tag=%d Sender=%d CommMembers=%s", tag, (me + n - 1) % n, text);
  expect("1 MPI_COLLECTIVE_END Operation=BARRIER CommMembers=%s CommName=%s", text, name);
  printf("RESULT rank %d tag %d got %d\n", rank, tag, in);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm halves, dup, subset, cart, row;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &halves); /* reversed order */
  use(halves, 10, "MPI_Comm_split");
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  use(dup, 11, "MPI_Comm_dup");
  MPI_Group world, first;
  int three[3] = {0, 1, 2};
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, size > 3 ? 3 : size, three, &first);
  MPI_Comm_create(MPI_COMM_WORLD, first, &subset);
  if (subset != MPI_COMM_NULL) {
    use(subset, 12, "MPI_Comm_create");
    MPI_Comm_free(&subset);
  }
  MPI_Group_free(&first);
  MPI_Group_free(&world);
  int dims[2] = {0, 0}, periods[2] = {0, 0}, keep[2] = {0, 1};
  MPI_Dims_create(size, 2, dims);
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  MPI_Cart_sub(cart, keep, &row);
  use(row, 13, "MPI_Cart_sub");
  MPI_Comm_free(&row);
  MPI_Comm_free(&halves);
  /* Handles of freed communicators come back: the new one must be a new definition. */
  MPI_Comm again;
  MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &again);
  use(again, 14, "MPI_Comm_split");
  MPI_Comm_free(&again);
  MPI_Comm_free(&cart);
  MPI_Comm_free(&dup);
  use(MPI_COMM_WORLD, 15, "MPI_COMM_WORLD");
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  use(node, 16, "MPI_Comm_split_type");
  MPI_Comm_free(&node);
  /* Only the even ranks take part in creating this one. */
  if (rank % 2 == 0) {
    MPI_Group world_group, evens;
    int range[1][3] = {{0, size - 1, 2}};
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_range_incl(world_group, 1, range, &evens);
    MPI_Comm even_comm;
    MPI_Comm_create_group(MPI_COMM_WORLD, evens, 17, &even_comm);
    use(even_comm, 18, "MPI_Comm_create_group");
    MPI_Comm_free(&even_comm);
    MPI_Group_free(&evens);
    MPI_Group_free(&world_group);
  }
  int value = rank;
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_MAX, MPI_COMM_SELF);
  expect("1 MPI_COLLECTIVE_END Operation=ALLREDUCE CommName=MPI_COMM_SELF");
  MPI_Finalize();
  return 0;
}

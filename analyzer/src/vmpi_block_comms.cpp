// The block layer's communicators, groups and distributed graphs
// (vmpi_block.h). A new communicator's context is derived from its parent's
// and a count every member keeps alike (members create communicators in the
// same order), so creating one needs no messages.

#include <algorithm>
#include <climits>
#include <cstring>

#include "vmpi_block.h"

namespace orrery::vmpi::block {
namespace {

Group* group_of(MPI_Group handle) { return reinterpret_cast<Group*>(handle); }

MPI_Comm new_comm(uint64_t context, std::vector<uint32_t> members, int rank) {
  auto* comm = new Comm;
  comm->context = context;
  comm->members = std::move(members);
  comm->rank = rank;
  return handle_of(comm);
}

uint64_t hash_members(const std::vector<uint32_t>& members) {
  uint64_t h = 1469598103934665603ULL;
  for (uint32_t m : members) h = (h ^ m) * 1099511628211ULL;
  return h;
}

constexpr int64_t kEdgeOut = -1;  // "you send to me" (tells a source its destination)

}  // namespace

int comm_rank(MPI_Comm comm, int* rank) {
  *rank = comm_of(comm)->rank;
  return MPI_SUCCESS;
}

int comm_size(MPI_Comm comm, int* size) {
  *size = static_cast<int>(comm_of(comm)->members.size());
  return MPI_SUCCESS;
}

int comm_dup(MPI_Comm handle, MPI_Comm* out) {
  Comm* comm = comm_of(handle);
  *out = new_comm(derive_context(comm->context, ++comm->derived), comm->members, comm->rank);
  return MPI_SUCCESS;
}

int comm_free(MPI_Comm* handle) {
  Comm* comm = comm_of(*handle);
  if (comm != current->world && comm != current->self) delete comm;
  *handle = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int comm_group(MPI_Comm comm, MPI_Group* group) {
  *group = reinterpret_cast<MPI_Group>(new Group{comm_of(comm)->members});
  return MPI_SUCCESS;
}

int group_incl(MPI_Group handle, int n, const int* ranks, MPI_Group* out) {
  auto* group = new Group;
  for (int k = 0; k < n; ++k) group->members.push_back(group_of(handle)->members.at(ranks[k]));
  *out = reinterpret_cast<MPI_Group>(group);
  return MPI_SUCCESS;
}

int group_free(MPI_Group* handle) {
  delete group_of(*handle);
  *handle = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}

int comm_create_group(MPI_Comm handle, MPI_Group group_handle, int tag, MPI_Comm* out) {
  Comm* comm = comm_of(handle);
  const std::vector<uint32_t>& members = group_of(group_handle)->members;
  auto at = std::find(members.begin(), members.end(), current->traced);
  if (at == members.end()) {
    *out = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  const uint64_t key = hash_members(members) ^ static_cast<uint64_t>(tag);
  const uint64_t count = ++comm->created_groups[key];
  *out = new_comm(derive_context(derive_context(comm->context, key), count), members,
                  static_cast<int>(at - members.begin()));
  return MPI_SUCCESS;
}

int comm_get_attr(MPI_Comm /*comm*/, int key, void* value, int* flag) {
  static int tag_upper_bound = INT_MAX;
  *flag = 0;
  if (key == MPI_TAG_UB) {
    *static_cast<int**>(value) = &tag_upper_bound;
    *flag = 1;
  }
  return MPI_SUCCESS;
}

// Each edge is reported by the rank that names it; its source learns the
// destination and its destination the source, by one message each. How many
// each rank gets is summed first (one Allreduce over 2 x size counts, once
// per topology communicator).
int dist_graph_create(MPI_Comm handle, int n, const int* sources, const int* degrees,
                      const int* destinations, MPI_Comm* out) {
  Comm* parent = comm_of(handle);
  const std::size_t size = parent->members.size();
  std::vector<int> counts(2 * size, 0);  // [in-degree..., out-degree...]
  std::vector<std::pair<int, int>> edges;
  for (int k = 0, at = 0; k < n; ++k) {
    for (int d = 0; d < degrees[k]; ++d, ++at) {
      edges.emplace_back(sources[k], destinations[at]);
      ++counts[static_cast<std::size_t>(destinations[at])];
      ++counts[size + static_cast<std::size_t>(sources[k])];
    }
  }
  collective({Op::kAllreduce, MPI_IN_PLACE, counts.data(), static_cast<int>(counts.size()),
              MPI_INT, MPI_SUM},
             handle, nullptr);
  MPI_Comm graph_handle = MPI_COMM_NULL;
  comm_dup(handle, &graph_handle);
  Comm* graph = comm_of(graph_handle);
  graph->graph = true;
  const int64_t sequence = collective_tag(static_cast<int64_t>(graph->collectives++), 0);
  for (const auto& [source, destination] : edges) {
    for (const bool to_source : {true, false}) {
      Message message;
      message.context = graph->context | 1U;
      message.source = graph->rank;
      message.tag = sequence;
      message.sender = current->traced;
      const int64_t body[2] = {to_source ? kEdgeOut : 0, to_source ? destination : source};
      message.data.resize(sizeof body);
      std::memcpy(message.data.data(), body, sizeof body);
      post(graph->members[static_cast<std::size_t>(to_source ? source : destination)],
           std::move(message));
    }
  }
  const int expected = counts[static_cast<std::size_t>(graph->rank)] +
                       counts[size + static_cast<std::size_t>(graph->rank)];
  for (int k = 0; k < expected; ++k) {
    Message message = take_collective(*graph, MPI_ANY_SOURCE, sequence);
    int64_t body[2] = {};
    std::memcpy(body, message.data.data(), sizeof body);
    (body[0] == kEdgeOut ? graph->out_neighbors : graph->in_neighbors)
        .push_back(static_cast<int>(body[1]));
  }
  std::sort(graph->in_neighbors.begin(), graph->in_neighbors.end());
  std::sort(graph->out_neighbors.begin(), graph->out_neighbors.end());
  *out = graph_handle;
  return MPI_SUCCESS;
}

int dist_graph_neighbors_count(MPI_Comm handle, int* indegree, int* outdegree, int* weighted) {
  const Comm* comm = comm_of(handle);
  *indegree = static_cast<int>(comm->in_neighbors.size());
  *outdegree = static_cast<int>(comm->out_neighbors.size());
  *weighted = 0;
  return MPI_SUCCESS;
}

int neighbor_allgather(const void* send, int send_count, MPI_Datatype send_type, void* recv,
                       int recv_count, MPI_Datatype recv_type, MPI_Comm handle) {
  Comm* comm = comm_of(handle);
  const int64_t sequence = collective_tag(static_cast<int64_t>(comm->collectives++), 0);
  const auto* bytes = static_cast<const char*>(send);
  for (const int destination : comm->out_neighbors) {
    Message message;
    message.context = comm->context | 1U;
    message.source = comm->rank;
    message.tag = sequence;
    message.sender = current->traced;
    message.data.assign(bytes, bytes + bytes_of(send_count, send_type));
    post(comm->members[static_cast<std::size_t>(destination)], std::move(message));
  }
  const std::size_t block = bytes_of(recv_count, recv_type);
  for (std::size_t k = 0; k < comm->in_neighbors.size(); ++k) {
    Message message = take_collective(*comm, comm->in_neighbors[k], sequence);
    std::memcpy(static_cast<char*>(recv) + k * block, message.data.data(),
                std::min(block, message.data.size()));
  }
  return MPI_SUCCESS;
}

}  // namespace orrery::vmpi::block

#include "orrery/analyzer/partner_exchange.h"

#include <algorithm>
#include "vmpi.h"

namespace orrery::analyzer {
namespace {

/// Tags of the analyzer's own point-to-point traffic on the world
/// communicator (nothing else in the analysis sends point-to-point there).
constexpr int kDiscoveryTag = 0x4f52;
constexpr int kBlockTag = 0x4f53;

}  // namespace

void BlockLayout::add(uint32_t peer, std::size_t count) {
  peers.push_back(peer);
  counts.push_back(count);
  displs.push_back(total);
  total += count;
}

std::vector<std::pair<uint32_t, uint64_t>> discover_senders(
    const std::vector<uint32_t>& destinations, const std::vector<uint64_t>& counts,
    MPI_Comm world) {
  // A private communicator: a fast rank's next discovery must not be taken
  // for this one's by a rank still probing.
  MPI_Comm comm = MPI_COMM_NULL;
  vmpi::Comm_dup(world, &comm);
  std::vector<MPI_Request> sends(destinations.size(), MPI_REQUEST_NULL);
  for (std::size_t k = 0; k < destinations.size(); ++k) {
    vmpi::Issend(&counts[k], 1, MPI_UINT64_T, static_cast<int>(destinations[k]), kDiscoveryTag,
               comm, &sends[k]);
  }
  std::vector<std::pair<uint32_t, uint64_t>> senders;
  MPI_Request barrier = MPI_REQUEST_NULL;
  bool barrier_started = false;
  for (;;) {
    int arrived = 0;
    MPI_Status status;
    vmpi::Iprobe(MPI_ANY_SOURCE, kDiscoveryTag, comm, &arrived, &status);
    if (arrived != 0) {
      uint64_t count = 0;
      vmpi::Recv(&count, 1, MPI_UINT64_T, status.MPI_SOURCE, kDiscoveryTag, comm,
               MPI_STATUS_IGNORE);
      senders.emplace_back(static_cast<uint32_t>(status.MPI_SOURCE), count);
      continue;
    }
    if (!barrier_started) {
      // Synchronous sends complete once received: then this rank's part is
      // delivered and it joins the barrier.
      int delivered = 0;
      vmpi::Testall(static_cast<int>(sends.size()), sends.data(), &delivered,
                  MPI_STATUSES_IGNORE);
      if (delivered != 0) {
        vmpi::Ibarrier(comm, &barrier);
        barrier_started = true;
      }
    } else {
      // Everyone's sends were received: nothing more can arrive.
      int done = 0;
      vmpi::Test(&barrier, &done, MPI_STATUS_IGNORE);
      if (done != 0) break;
    }
  }
  vmpi::Comm_free(&comm);
  std::sort(senders.begin(), senders.end());
  return senders;
}

void exchange_blocks(const void* out, const BlockLayout& to, void* in, const BlockLayout& from,
                     MPI_Datatype type, MPI_Comm world) {
  int element = 0;
  MPI_Type_size(type, &element);
  const auto bytes = static_cast<std::size_t>(element);
  std::vector<MPI_Request> requests;
  const auto post = [&](const BlockLayout& layout, auto&& start) {
    for (std::size_t k = 0; k < layout.peers.size(); ++k) {
      for (std::size_t done = 0; done < layout.counts[k]; done += kExchangeBlock) {
        const std::size_t count = std::min(kExchangeBlock, layout.counts[k] - done);
        requests.emplace_back();
        start((layout.displs[k] + done) * bytes, static_cast<int>(count),
              static_cast<int>(layout.peers[k]), &requests.back());
      }
    }
  };
  // Receives first, so that most messages find their buffer posted. The
  // pieces of one block arrive in order (same source, tag and communicator).
  auto* in_bytes = static_cast<char*>(in);
  const auto* out_bytes = static_cast<const char*>(out);
  post(from, [&](std::size_t offset, int count, int peer, MPI_Request* request) {
    vmpi::Irecv(in_bytes + offset, count, type, peer, kBlockTag, world, request);
  });
  post(to, [&](std::size_t offset, int count, int peer, MPI_Request* request) {
    vmpi::Isend(out_bytes + offset, count, type, peer, kBlockTag, world, request);
  });
  vmpi::Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}

}  // namespace orrery::analyzer

#pragma once
// Point-to-point data between actual partners only (docs/design.md §4, "Scale is a
// contract"): no dense exchange over all ranks. A rank knows whom it sends
// to; who sends to it is discovered once with a non-blocking consensus
// (synchronous sends, probes, then a non-blocking barrier: Hoefler, Siebert
// and Lumsdaine, "Scalable communication protocols for dynamic sparse data
// exchange", 2010), and afterwards blocks of values travel along those edges
// as point-to-point messages of bounded size. Per rank the cost is
// O(partners + its own values), plus O(log P) for the barrier.

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace orrery::analyzer {

/// Where the blocks of one side of an exchange go or come from: one block
/// per peer (a world rank), peers in increasing rank order, laid out one
/// after the other in a flat buffer.
struct BlockLayout {
  std::vector<uint32_t> peers;
  std::vector<std::size_t> counts;  ///< elements per peer
  std::vector<std::size_t> displs;  ///< first element of each peer's block
  std::size_t total = 0;

  /// Appends a peer (in increasing rank order) with `count` elements.
  void add(uint32_t peer, std::size_t count);
};

/// Collective over `world`: sends `counts[k]` to `destinations[k]` and
/// returns every (source, count) that some rank sent to this one, sorted by
/// source. Destinations must be distinct.
[[nodiscard]] std::vector<std::pair<uint32_t, uint64_t>> discover_senders(
    const std::vector<uint32_t>& destinations, const std::vector<uint64_t>& counts,
    MPI_Comm world);

/// Sends block k of `out` (laid out by `to`) to `to.peers[k]` and receives
/// block k of `in` (laid out by `from`) from `from.peers[k]`; the peers must
/// agree on the block sizes. Blocks travel in messages of at most
/// kExchangeBlock elements. Only the ranks that are partners communicate.
void exchange_blocks(const void* out, const BlockLayout& to, void* in, const BlockLayout& from,
                     MPI_Datatype type, MPI_Comm world);

/// The largest message of exchange_blocks, in elements.
inline constexpr std::size_t kExchangeBlock = std::size_t{1} << 20;

}  // namespace orrery::analyzer

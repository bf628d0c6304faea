// The delay analysis' RecordSubset (analyzer/src/delay_rounds.h): each side
// splits its records in one pass into the selected ones and the others; the
// lists, the order check and the values that travel must be what a
// selection record by record gives.

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "delay_rounds.h"

namespace orrery::testing {
namespace {

using analyzer::delay::RecordChannel;
using analyzer::delay::RecordSubset;

/// Records waiter `w` sends delayer `d` (every other rank, 5 to 15).
std::size_t records(int w, int d) { return static_cast<std::size_t>((7 * w + 3 * d) % 11 + 5); }
/// Whether the delayer selects record `i` from waiter `w` (about two in three).
bool selected(int w, int d, std::size_t i) { return (i * 5 + static_cast<std::size_t>(w + 2 * d)) % 3 != 0; }
/// The wait state of waiter `w`'s outgoing record `r` (all its blocks in
/// order): ascending, or, if `shuffled`, not.
uint32_t wait_of(std::size_t r, bool shuffled) {
  return static_cast<uint32_t>(shuffled ? (r % 4) * 100 + r : 2 * r + 1);
}
/// Where waiter `w`'s block for delayer `d` begins among its outgoing records.
std::size_t first_record(int w, int d) {
  std::size_t first = 0;
  for (int p = 0; p < d; ++p) first += p == w ? 0 : records(w, p);
  return first;
}

/// Checks a subset over all ranks; returns its ordered().
bool check_split(bool shuffled) {
  int me = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<uint32_t> peers;
  std::vector<std::size_t> counts;
  for (int p = 0; p < size; ++p) {
    if (p == me) continue;
    peers.push_back(static_cast<uint32_t>(p));
    counts.push_back(records(me, p));
  }
  RecordChannel channel;
  channel.open(peers, counts, MPI_COMM_WORLD);
  const auto& in = channel.incoming_records();
  std::vector<uint8_t> keep_in(in.total);
  for (std::size_t k = 0; k < in.peers.size(); ++k) {
    for (std::size_t i = 0; i < in.counts[k]; ++i) {
      keep_in[in.displs[k] + i] = selected(static_cast<int>(in.peers[k]), me, i) ? 1 : 0;
    }
  }
  const std::vector<uint8_t> keep_out = channel.to_waiters(keep_in);
  std::vector<uint32_t> record_wait(keep_out.size());
  for (std::size_t r = 0; r < record_wait.size(); ++r) record_wait[r] = wait_of(r, shuffled);
  RecordSubset subset(channel, keep_in, keep_out, record_wait);

  // The lists and the order, record by record.
  std::vector<uint32_t> kept, others;
  for (std::size_t r = 0; r < keep_out.size(); ++r) {
    (keep_out[r] != 0 ? kept : others).push_back(record_wait[r]);
  }
  bool ascending = true;
  for (const auto* list : {&kept, &others}) {
    for (std::size_t k = 1; k < list->size(); ++k) ascending = ascending && (*list)[k] > (*list)[k - 1];
  }
  EXPECT_EQ(subset.kept_waits(), kept);
  EXPECT_EQ(subset.other_waits(), others);
  EXPECT_EQ(subset.ordered(), ascending);
  EXPECT_GT(kept.size(), 0U);
  EXPECT_GT(others.size(), 0U);

  // Selected records through exchange(), the others held: all arrive at
  // their delayers in record order.
  for (std::size_t s = 0; s < kept.size(); ++s) subset.outgoing()[s] = 1000.0 * me + kept[s];
  for (std::size_t o = 0; o < others.size(); ++o) subset.held()[o] = -1000.0 * me - others[o];
  const std::vector<double> received = subset.exchange();
  const std::vector<double> all = subset.carry_others();
  EXPECT_EQ(all.size(), in.total);
  if (all.size() != in.total) return false;  // (no collective call follows)
  std::size_t s = 0;
  for (std::size_t k = 0; k < in.peers.size(); ++k) {
    const int waiter = static_cast<int>(in.peers[k]);
    for (std::size_t i = 0; i < in.counts[k]; ++i) {
      const uint32_t wait = wait_of(first_record(waiter, me) + i, shuffled);
      if (selected(waiter, me, i)) {
        EXPECT_EQ(received[s++], 1000.0 * waiter + wait) << waiter << " " << i;
        EXPECT_EQ(all[in.displs[k] + i], 1000.0 * waiter + wait) << waiter << " " << i;
      } else {
        EXPECT_EQ(all[in.displs[k] + i], -1000.0 * waiter - wait) << waiter << " " << i;
      }
    }
  }
  EXPECT_EQ(s, received.size());
  return subset.ordered();
}

int ranks() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

TEST(AnalyzerRecordSubset, SplitsAsARecordByRecordSelection) {
  if (ranks() < 2) GTEST_SKIP() << "needs 2 ranks";
  EXPECT_TRUE(check_split(false));
}

TEST(AnalyzerRecordSubset, FindsRecordsOutOfWaitStateOrder) {
  // The wait states of a rank's records go 0, 101, 202, 303, 4, ...: some
  // list of at least two records steps down.
  if (ranks() < 2) GTEST_SKIP() << "needs 2 ranks";
  EXPECT_FALSE(check_split(true));
}

}  // namespace
}  // namespace orrery::testing

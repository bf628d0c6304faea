// The delay analysis' record batches (RecordChannel::send_batch /
// receive_batch, delay_model.h): a rank writes the next batch before it
// reads the last one, and every block must still arrive whole, in order and
// from the right source: blocks of several batches, a block of exactly
// kExchangeBlock words (it ends with an empty message), one longer than that
// (two messages), partners with records in some batches only. Part of
// analyzer_delay_test (4 ranks).

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "delay_model.h"

namespace orrery::testing {
namespace {

using analyzer::BlockLayout;
using analyzer::kExchangeBlock;
using analyzer::delay::RecordChannel;

constexpr std::size_t kBatch = RecordChannel::kBatch;

/// How many words record `i` has: in the first batch a block of exactly
/// kExchangeBlock words, in the second more than that, then a few.
std::size_t length_of(std::size_t i) {
  static_assert(kExchangeBlock % kBatch == 0);
  if (i < kBatch) return kExchangeBlock / kBatch;
  if (i < 2 * kBatch) return kExchangeBlock / kBatch + 1;
  return 1 + i % 5;
}
/// Word `j` of record `i` from `source` to `destination`.
uint32_t word_of(uint32_t source, uint32_t destination, std::size_t i, std::size_t j) {
  return static_cast<uint32_t>((source * 1000003u) ^ (destination * 7919u) ^ (i * 31u) ^ (j << 24));
}

TEST(DelayRecordChannel, BatchesArriveWholeWhileTheNextOneIsWritten) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ASSERT_GE(size, 3);
  const auto self = static_cast<uint32_t>(rank);
  const auto ranks = static_cast<uint32_t>(size);
  // To the next rank three batches' worth, to the one after it a few records.
  const uint32_t next = (self + 1) % ranks, after = (self + 2) % ranks;
  std::vector<uint32_t> peers{std::min(next, after), std::max(next, after)};
  std::vector<std::size_t> records(2);
  records[next == peers[0] ? 0 : 1] = 2 * kBatch + 3;
  records[next == peers[0] ? 1 : 0] = 5;
  RecordChannel channel;
  channel.open(peers, records, MPI_COMM_WORLD);
  ASSERT_EQ(channel.batches(), 3u);
  const BlockLayout& incoming = channel.incoming_records();
  ASSERT_EQ(incoming.peers.size(), 2u);

  std::vector<uint32_t> words[2];
  std::vector<MPI_Request> sending[2];
  std::vector<std::size_t> sizes;
  std::vector<uint32_t> received;
  BlockLayout in;
  std::size_t blocks_checked = 0, wrong = 0;
  const auto check = [&](std::size_t batch) {
    channel.receive_batch(batch, in, received);
    for (std::size_t b = 0, k = 0; b < in.peers.size(); ++b) {
      while (k < incoming.peers.size() && incoming.peers[k] != in.peers[b]) ++k;
      ASSERT_LT(k, incoming.peers.size());
      const auto [first, last] = RecordChannel::slice(incoming.counts[k], batch);
      ASSERT_LT(first, last) << "a block from a source without records in batch " << batch;
      std::size_t at = in.displs[b];
      for (std::size_t i = first; i < last; ++i) {
        for (std::size_t j = 0; j < length_of(i); ++j, ++at) {
          ASSERT_LT(at, in.displs[b] + in.counts[b]);
          wrong += received[at] != word_of(in.peers[b], self, i, j) ? 1 : 0;
        }
      }
      EXPECT_EQ(at, in.displs[b] + in.counts[b]) << "block from " << in.peers[b];
      ++blocks_checked;
    }
  };
  for (std::size_t batch = 0; batch < channel.batches(); ++batch) {
    RecordChannel::wait_sent(sending[batch % 2]);
    std::vector<uint32_t>& out = words[batch % 2];
    out.clear();
    sizes.clear();
    for (std::size_t k = 0; k < peers.size(); ++k) {
      const auto [first, last] = RecordChannel::slice(records[k], batch);
      if (first == last) continue;
      const std::size_t start = out.size();
      for (std::size_t i = first; i < last; ++i) {
        for (std::size_t j = 0; j < length_of(i); ++j) out.push_back(word_of(self, peers[k], i, j));
      }
      sizes.push_back(out.size() - start);
    }
    if (batch == 0) {
      ASSERT_EQ(sizes[next == peers[0] ? 0 : 1], kExchangeBlock);
    }
    channel.send_batch(batch, out, sizes, sending[batch % 2]);
    if (batch > 0) check(batch - 1);
  }
  check(channel.batches() - 1);
  RecordChannel::wait_sent(sending[0]);
  RecordChannel::wait_sent(sending[1]);
  EXPECT_EQ(wrong, 0u);
  // Batch 0 and 1: both sources (the few records only in batch 0), batch 2: one.
  EXPECT_EQ(blocks_checked, 2u + 1u + 1u);
}

}  // namespace
}  // namespace orrery::testing

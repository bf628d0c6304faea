// MessageMatching: values travel along the traced messages exactly as MPI
// matched them, the validation fails on every rank with check_messages'
// texts, and the precomputed exchange gives what exchange_along_messages
// gives. Runs under mpirun with 2, 3 or 4 ranks; message tables are built by
// hand, one rank's table per analysis rank.

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "mpi_world.h"
#include "orrery/analyzer/communicators.h"
#include "orrery/analyzer/message_exchange.h"
#include "orrery/analyzer/replay.h"
#include "reference_matching.h"

namespace orrery::analyzer {
namespace {

// Communicator ids of the test definitions.
constexpr uint32_t kWorld = 0;     // members 0..n-1
constexpr uint32_t kReversed = 1;  // members n-1..0: comm ranks differ from world ranks
constexpr uint32_t kEvens = 2;     // members 0, 2, 4, ...
constexpr uint32_t kSelf = 3;      // MPI_COMM_SELF-like

uint32_t world_size() { return testing::world_size_u32(); }
uint32_t world_rank() { return testing::world_rank_u32(); }

Definitions make_definitions() {
  const uint32_t n = world_size();
  Definitions definitions;
  definitions.ranks.resize(n);
  CommDef world{"world", {}, false};
  CommDef reversed{"reversed", {}, false};
  CommDef evens{"evens", {}, false};
  for (uint32_t r = 0; r < n; ++r) {
    world.members.push_back(r);
    reversed.members.push_back(n - 1 - r);
    if (r % 2 == 0) evens.members.push_back(r);
  }
  definitions.comms[kWorld] = world;
  definitions.comms[kReversed] = reversed;
  definitions.comms[kEvens] = evens;
  definitions.comms[kSelf] = CommDef{"self", {}, true};
  return definitions;
}

/// Rank of world rank `world` in comm `comm` of make_definitions().
uint32_t comm_rank(uint32_t comm, uint32_t world) {
  switch (comm) {
    case kWorld: return world;
    case kReversed: return world_size() - 1 - world;
    case kEvens: return world / 2;
    default: return 0;
  }
}

MessageOp message(uint32_t peer, uint32_t comm, uint32_t tag, bool cancelled = false) {
  MessageOp op;
  op.peer = peer;
  op.comm = comm;
  op.tag = tag;
  op.cancelled = cancelled;
  return op;
}

/// A value that names a message: sender, receiver, communicator, tag, sequence.
int64_t name(uint32_t from, uint32_t to, uint32_t comm, uint32_t tag, uint32_t seq) {
  return (((static_cast<int64_t>(from) * 64 + to) * 8 + comm) * 64 + tag) * 1000 + seq;
}

/// The fixture: definitions, communicators and an empty trace of this rank.
struct Fixture {
  Definitions definitions = make_definitions();
  LocalTrace trace;
  Communicators comms{definitions, world_rank(), MPI_COMM_WORLD};
  Fixture() { trace.rank = world_rank(); }

  MessageMatching build(std::string& error) const {
    return MessageMatching::build(trace, definitions, comms, MPI_COMM_WORLD, error);
  }
  MessageMatching build() const {
    std::string error;
    MessageMatching matching = build(error);
    EXPECT_EQ(error, "");
    return matching;
  }
  /// As an incomplete trace is matched: counts that disagree are no error.
  MessageMatching build_tolerating_truncation() const {
    std::string error;
    MessageMatching matching =
        MessageMatching::build(trace, definitions, comms, MPI_COMM_WORLD, error, true);
    EXPECT_EQ(error, "");
    return matching;
  }
};

using Channel = std::pair<uint32_t, uint32_t>;  // comm, tag
constexpr Channel kSendOrder[] = {{kWorld, 7}, {kReversed, 7}, {kReversed, 9}};
constexpr Channel kReceiveOrder[] = {{kReversed, 9}, {kWorld, 7}, {kReversed, 7}};

TEST(MessageMatching, ValuesReachTheirReceivesAcrossTagsAndComms) {
  const uint32_t n = world_size(), me = world_rank();
  Fixture setup;
  std::vector<int64_t> send_values;
  // Three messages per channel to every rank (itself too) on two comms and
  // two tags, the channels interleaved differently on both sides.
  for (uint32_t seq = 0; seq < 3; ++seq) {
    for (uint32_t to = 0; to < n; ++to) {
      for (auto [comm, tag] : kSendOrder) {
        setup.trace.sends.push_back(message(comm_rank(comm, to), comm, tag));
        send_values.push_back(name(me, to, comm, tag, seq));
      }
    }
  }
  std::vector<int64_t> expected;  // per receive
  for (auto [comm, tag] : kReceiveOrder) {
    for (uint32_t from = n; from-- > 0;) {
      for (uint32_t seq = 0; seq < 3; ++seq) {
        setup.trace.recvs.push_back(message(comm_rank(comm, from), comm, tag));
        expected.push_back(name(from, me, comm, tag, seq));
      }
    }
  }
  const MessageMatching matching = setup.build();
  EXPECT_EQ(matching.matched_recvs(), setup.trace.recvs.size());
  EXPECT_EQ(matching.matched_sends(), setup.trace.sends.size());
  EXPECT_EQ(matching.to_receivers(send_values, MPI_COMM_WORLD), expected);
  // The way back: each receive answers with its own name plus one.
  std::vector<int64_t> answers(expected);
  for (int64_t& value : answers) value += 1;
  std::vector<int64_t> back(send_values);
  for (int64_t& value : back) value += 1;
  EXPECT_EQ(matching.to_senders(answers, MPI_COMM_WORLD), back);
  // Exchanges can be repeated with other values.
  std::vector<int64_t> doubled(send_values);
  for (int64_t& value : doubled) value *= 2;
  std::vector<int64_t> expected_doubled(expected);
  for (int64_t& value : expected_doubled) value *= 2;
  EXPECT_EQ(matching.to_receivers(doubled, MPI_COMM_WORLD), expected_doubled);
}

TEST(MessageMatching, InterleavedChannelsKeepPostingOrder) {
  // Rank r sends tags 1, 2, 1, 2, 1 to r+1; the receiver posts all tag 2
  // receives first. Each channel still pairs in posting order.
  const uint32_t n = world_size(), me = world_rank();
  Fixture setup;
  const uint32_t to = (me + 1) % n, from = (me + n - 1) % n;
  std::vector<int64_t> values;
  for (uint32_t k = 0; k < 5; ++k) {
    const uint32_t tag = k % 2 == 0 ? 1 : 2;
    setup.trace.sends.push_back(message(to, kWorld, tag));
    values.push_back(name(me, to, kWorld, tag, k));
  }
  std::vector<int64_t> expected;
  for (uint32_t k : {1U, 3U, 0U, 2U, 4U}) {
    setup.trace.recvs.push_back(message(from, kWorld, k % 2 == 0 ? 1 : 2));
    expected.push_back(name(from, me, kWorld, k % 2 == 0 ? 1 : 2, k));
  }
  const MessageMatching matching = setup.build();
  EXPECT_EQ(matching.to_receivers(values, MPI_COMM_WORLD), expected);
  EXPECT_EQ(matching.to_senders(expected, MPI_COMM_WORLD), values);
}

// Tables grouped by peer already take build()'s in-place paths (sends in
// rank order at their own positions, receives grouped by source); grouped
// in descending rank order, or with a cancelled send inside, they must fall
// back to the general grouping. The values are the same either way.
TEST(MessageMatching, TablesGroupedByPeerMatchInPlaceOrFallBack) {
  const uint32_t n = world_size(), me = world_rank();
  for (int variant = 0; variant < 3; ++variant) {
    const bool descending = variant == 1, with_cancelled = variant == 2;
    Fixture setup;
    std::vector<int64_t> values;
    for (uint32_t k = 0; k < n; ++k) {
      const uint32_t to = descending ? n - 1 - k : k;
      for (uint32_t seq = 0; seq < 3; ++seq) {
        setup.trace.sends.push_back(message(to, kWorld, 5 + seq % 2));
        values.push_back(name(me, to, kWorld, 5 + seq % 2, seq));
        if (with_cancelled && seq == 1) {
          setup.trace.sends.push_back(message(to, kWorld, 5, true));
          values.push_back(-1);
        }
      }
    }
    std::vector<int64_t> expected;
    for (uint32_t k = 0; k < n; ++k) {
      const uint32_t from = descending ? k : n - 1 - k;  // the other order than the sends
      for (uint32_t seq = 0; seq < 3; ++seq) {
        setup.trace.recvs.push_back(message(from, kWorld, 5 + seq % 2));
        expected.push_back(name(from, me, kWorld, 5 + seq % 2, seq));
      }
    }
    const MessageMatching matching = setup.build();
    EXPECT_EQ(matching.matched_recvs(), setup.trace.recvs.size()) << variant;
    EXPECT_EQ(matching.to_receivers(values, MPI_COMM_WORLD), expected) << variant;
    std::vector<int64_t> back = matching.to_senders(expected, MPI_COMM_WORLD);
    for (std::size_t i = 0; i < values.size(); ++i) {
      EXPECT_EQ(back[i], values[i] == -1 ? kNoValue : values[i]) << variant << " send " << i;
    }
  }
}

// A ring whose tables are laid out as the blocks (one partner each way,
// the same channel order on both sides): the exchanges read and write the
// callers' vectors in place; with the receiver's channels in another order
// they do not. Both give each message its own value, both ways.
TEST(MessageMatching, RingExchangesInPlaceAndOutOfOrder) {
  const uint32_t n = world_size(), me = world_rank();
  const uint32_t to = (me + 1) % n, from = (me + n - 1) % n;
  for (bool same_order : {true, false}) {
    Fixture setup;
    std::vector<int64_t> values, expected;
    for (uint32_t seq = 0; seq < 6; ++seq) {
      setup.trace.sends.push_back(message(to, kWorld, seq % 3));
      values.push_back(name(me, to, kWorld, seq % 3, seq));
    }
    constexpr uint32_t kByTagDescending[] = {2, 5, 1, 4, 0, 3};  // tags 2, 2, 1, 1, 0, 0
    for (uint32_t k = 0; k < 6; ++k) {
      const uint32_t seq = same_order ? k : kByTagDescending[k];
      setup.trace.recvs.push_back(message(from, kWorld, seq % 3));
      expected.push_back(name(from, me, kWorld, seq % 3, seq));
    }
    const MessageMatching matching = setup.build();
    EXPECT_EQ(matching.to_receivers(values, MPI_COMM_WORLD), expected) << same_order;
    EXPECT_EQ(matching.to_senders(expected, MPI_COMM_WORLD), values) << same_order;
    const auto [first, second] = matching.to_receivers(values, expected, MPI_COMM_WORLD);
    EXPECT_EQ(first, expected) << same_order;
  }
}

TEST(MessageMatching, WildcardReceivesMatchTheirRecordedSource) {
  // Rank 0 receives from everybody with ANY_SOURCE: the trace records the
  // actual source, in arrival order (here: highest rank first, two rounds).
  const uint32_t n = world_size(), me = world_rank();
  Fixture setup;
  std::vector<int64_t> values;
  if (me != 0) {
    for (uint32_t seq = 0; seq < 2; ++seq) {
      setup.trace.sends.push_back(message(0, kWorld, 5));
      values.push_back(name(me, 0, kWorld, 5, seq));
    }
  }
  std::vector<int64_t> expected;
  if (me == 0) {
    for (uint32_t seq = 0; seq < 2; ++seq) {
      for (uint32_t from = n - 1; from >= 1; --from) {
        setup.trace.recvs.push_back(message(from, kWorld, 5));
        expected.push_back(name(from, 0, kWorld, 5, seq));
      }
    }
  }
  const MessageMatching matching = setup.build();
  EXPECT_EQ(matching.to_receivers(values, MPI_COMM_WORLD), expected);
  EXPECT_EQ(matching.to_senders(expected, MPI_COMM_WORLD), values);
}

TEST(MessageMatching, CancelledOperationsAndUnknownSourcesAreSkipped) {
  const uint32_t n = world_size(), me = world_rank();
  Fixture setup;
  const uint32_t to = (me + 1) % n, from = (me + n - 1) % n;
  // Sends: real, cancelled, real (the cancelled one never arrives).
  setup.trace.sends = {message(to, kWorld, 3), message(to, kWorld, 3, true),
                       message(to, kWorld, 3)};
  const std::vector<int64_t> values = {10, 20, 30};
  // Receives: cancelled (with a source), real, wildcard never matched
  // (source unknown), real, cancelled with a source the definitions do not
  // know (cancelled: not validated).
  setup.trace.recvs = {message(from, kWorld, 3, true), message(from, kWorld, 3),
                       message(kNone, kWorld, 3), message(from, kWorld, 3),
                       message(n + 7, 99, 3, true)};
  const MessageMatching matching = setup.build();
  EXPECT_EQ(matching.matched_recvs(), 2U);
  EXPECT_EQ(matching.matched_sends(), 2U);
  EXPECT_FALSE(matching.recv_matched(0));
  EXPECT_TRUE(matching.recv_matched(1));
  EXPECT_FALSE(matching.send_matched(1));
  EXPECT_EQ(matching.to_receivers(values, MPI_COMM_WORLD),
            (std::vector<int64_t>{kNoValue, 10, kNoValue, 30, kNoValue}));
  EXPECT_EQ(matching.to_senders({1, 2, 3, 4, 5}, MPI_COMM_WORLD),
            (std::vector<int64_t>{2, kNoValue, 4}));
}

TEST(MessageMatching, UnmatchedChannelGivesNoValue) {
  // Rank r sends tag 1 then tag 4 to r+1, which recorded tag 2 then tag 4:
  // the counts agree, but tags 1 and 2 find no partner.
  const uint32_t n = world_size(), me = world_rank();
  Fixture setup;
  setup.trace.sends = {message((me + 1) % n, kWorld, 1), message((me + 1) % n, kWorld, 4)};
  setup.trace.recvs = {message((me + n - 1) % n, kWorld, 2),
                       message((me + n - 1) % n, kWorld, 4)};
  const MessageMatching matching = setup.build();
  EXPECT_EQ(matching.matched_recvs(), 1U);
  EXPECT_EQ(matching.to_receivers({100, 400}, MPI_COMM_WORLD),
            (std::vector<int64_t>{kNoValue, 400}));
  EXPECT_EQ(matching.to_senders({200, 401}, MPI_COMM_WORLD),
            (std::vector<int64_t>{kNoValue, 401}));
}

TEST(MessageMatching, TruncatedReceiverPairsThePrefixInOrder) {
  // Rank r sends tags 1, 1, 2, 2, 1 to r+1, whose trace ends after three
  // receives (1, 1, 2): those three pair with the first three sends.
  const uint32_t n = world_size(), me = world_rank();
  Fixture setup;
  for (uint32_t tag : {1U, 1U, 2U, 2U, 1U}) {
    setup.trace.sends.push_back(message((me + 1) % n, kWorld, tag));
  }
  for (uint32_t tag : {1U, 1U, 2U}) {
    setup.trace.recvs.push_back(message((me + n - 1) % n, kWorld, tag));
  }
  const MessageMatching matching = setup.build_tolerating_truncation();
  EXPECT_EQ(matching.matched_recvs(), 3U);
  EXPECT_EQ(matching.to_receivers({10, 11, 20, 21, 12}, MPI_COMM_WORLD),
            (std::vector<int64_t>{10, 11, 20}));
  EXPECT_EQ(matching.to_senders({5, 6, 7}, MPI_COMM_WORLD),
            (std::vector<int64_t>{5, 6, 7, kNoValue, kNoValue}));
}

TEST(MessageMatching, TruncatedSenderLeavesTheLaterReceivesUnmatched) {
  // Rank r's trace ends after sending tags 1, 2 to r+1, which received
  // tags 1, 2, 2, 1.
  const uint32_t n = world_size(), me = world_rank();
  Fixture setup;
  for (uint32_t tag : {1U, 2U}) setup.trace.sends.push_back(message((me + 1) % n, kWorld, tag));
  for (uint32_t tag : {1U, 2U, 2U, 1U}) {
    setup.trace.recvs.push_back(message((me + n - 1) % n, kWorld, tag));
  }
  const MessageMatching matching = setup.build_tolerating_truncation();
  EXPECT_EQ(matching.matched_recvs(), 2U);
  EXPECT_EQ(matching.to_receivers({10, 20}, MPI_COMM_WORLD),
            (std::vector<int64_t>{10, 20, kNoValue, kNoValue}));
  EXPECT_EQ(matching.to_senders({5, 6, 7, 8}, MPI_COMM_WORLD), (std::vector<int64_t>{5, 6}));
}

TEST(MessageMatching, SelfAndSubCommunicators) {
  const uint32_t me = world_rank();
  Fixture setup;
  std::vector<int64_t> values, expected;
  setup.trace.sends.push_back(message(0, kSelf, 1));
  values.push_back(1000 + me);
  setup.trace.recvs.push_back(message(0, kSelf, 1));
  expected.push_back(1000 + me);
  if (me % 2 == 0) {  // evens: ring on the sub-communicator
    const uint32_t members = (world_size() + 1) / 2, mine = comm_rank(kEvens, me);
    setup.trace.sends.push_back(message((mine + 1) % members, kEvens, 2));
    values.push_back(2000 + me);
    setup.trace.recvs.push_back(message((mine + members - 1) % members, kEvens, 2));
    expected.push_back(2000 + 2 * ((mine + members - 1) % members));
  }
  const MessageMatching matching = setup.build();
  EXPECT_EQ(matching.to_receivers(values, MPI_COMM_WORLD), expected);
  EXPECT_EQ(matching.to_senders(expected, MPI_COMM_WORLD), values);
}

TEST(MessageMatching, EmptyTablesAndDefaultObject) {
  Fixture setup;
  const MessageMatching matching = setup.build();
  EXPECT_TRUE(matching.to_receivers({}, MPI_COMM_WORLD).empty());
  EXPECT_TRUE(matching.to_senders({}, MPI_COMM_WORLD).empty());
  const MessageMatching nothing;
  EXPECT_TRUE(nothing.to_receivers({}, MPI_COMM_WORLD).empty());
}

/// Builds on every rank and checks that all ranks got `expected`, that the
/// failing rank's check_messages says the same, and that the failed
/// matching's exchanges are still collective and carry nothing.
void expect_error_everywhere(const Fixture& setup, uint32_t failing, const std::string& expected) {
  std::string error;
  const MessageMatching matching = setup.build(error);
  EXPECT_EQ(error, expected);
  // check_messages is collective too; only the failing rank's text is known.
  const std::string checked =
      reference::check_messages(setup.trace, setup.definitions, setup.comms, MPI_COMM_WORLD);
  if (world_rank() == failing) {
    EXPECT_EQ(checked, expected);
  }
  const std::vector<int64_t> out(setup.trace.sends.size(), 1);
  const std::vector<int64_t> received = matching.to_receivers(out, MPI_COMM_WORLD);
  EXPECT_EQ(received, std::vector<int64_t>(setup.trace.recvs.size(), kNoValue));
  const std::vector<int64_t> in(setup.trace.recvs.size(), 1);
  EXPECT_EQ(matching.to_senders(in, MPI_COMM_WORLD),
            std::vector<int64_t>(setup.trace.sends.size(), kNoValue));
}

/// A valid ring (every rank sends one message to the next) to break.
void ring(Fixture& setup) {
  const uint32_t n = world_size(), me = world_rank();
  setup.trace.sends.push_back(message((me + 1) % n, kWorld, 0));
  setup.trace.recvs.push_back(message((me + n - 1) % n, kWorld, 0));
}

TEST(MessageMatching, UnknownCommunicatorFailsEverywhere) {
  Fixture setup;
  ring(setup);
  if (world_rank() == 1) setup.trace.sends.push_back(message(0, 42, 0));
  expect_error_everywhere(setup, 1,
                          "rank 1 has a send on communicator 42 with peer 0 that the "
                          "definitions do not know");
}

TEST(MessageMatching, UnknownPeerFailsEverywhere) {
  const uint32_t n = world_size();
  Fixture setup;
  ring(setup);
  if (world_rank() == n - 1) setup.trace.recvs.push_back(message(n + 3, kReversed, 0));
  expect_error_everywhere(setup, n - 1,
                          "rank " + std::to_string(n - 1) + " has a receive on communicator " +
                              std::to_string(kReversed) + " with peer " + std::to_string(n + 3) +
                              " that the definitions do not know");
}

TEST(MessageMatching, CommunicatorWithoutThisRankFailsEverywhere) {
  // Rank 1 is not in the evens communicator.
  Fixture setup;
  ring(setup);
  if (world_rank() == 1) setup.trace.sends.push_back(message(0, kEvens, 0));
  expect_error_everywhere(setup, 1,
                          "rank 1 has a send on communicator 2 with peer 0 that the "
                          "definitions do not know");
}

TEST(MessageMatching, CountMismatchFailsEverywhere) {
  Fixture setup;
  ring(setup);
  if (world_rank() == 0) setup.trace.sends.push_back(message(1, kWorld, 0));
  expect_error_everywhere(setup, 1,
                          "the traces disagree: rank 0 sent 2 messages to rank 1, which "
                          "received 1 (a truncated or inconsistent trace)");
}

TEST(MessageMatching, FirstFailingRankIsReported) {
  // Ranks 0 and 1 both fail; everyone gets rank 0's text.
  Fixture setup;
  ring(setup);
  if (world_rank() <= 1) setup.trace.sends.push_back(message(0, 50 + world_rank(), 0));
  expect_error_everywhere(setup, 0,
                          "rank 0 has a send on communicator 50 with peer 0 that the "
                          "definitions do not know");
}

/// One message of the random table, as both sides recorded it.
struct Generated {
  uint32_t from, to, comm, tag, recorded_tag;
  bool cancelled;
};

TEST(MessageMatching, SameAsExchangeAlongMessagesOnARandomTable) {
  const uint32_t n = world_size(), me = world_rank();
  Fixture setup;
  // Every rank generates the same global table (same seed) and keeps its part.
  std::mt19937_64 random(20261121);
  const auto pick = [&](uint32_t bound) {
    return static_cast<uint32_t>(std::uniform_int_distribution<uint32_t>(0, bound - 1)(random));
  };
  constexpr uint32_t kMessages = 6000;
  std::vector<Generated> table;
  for (uint32_t m = 0; m < kMessages; ++m) {
    Generated g{pick(n), pick(n), kWorld, pick(4), 0, pick(100) < 5};
    const uint32_t choice = pick(10);
    if (choice < 3) g.comm = kReversed;
    if (choice == 3 && g.from % 2 == 0 && g.to % 2 == 0) g.comm = kEvens;
    if (choice == 4 && g.from == g.to) g.comm = kSelf;
    g.recorded_tag = g.tag;
    if (pick(100) < 3) {  // received under another tag: both ends unmatched
      g.tag = 1000 + m;
      g.recorded_tag = 100000 + m;
    }
    table.push_back(g);
  }
  // Sends in generation order; receives shuffled, then each channel put
  // back into send order in the positions it got (MPI's non-overtaking).
  std::vector<int64_t> send_values;
  std::vector<uint32_t> incoming;
  for (uint32_t m = 0; m < kMessages; ++m) {
    const Generated& g = table[m];
    if (g.from == me) {
      setup.trace.sends.push_back(message(comm_rank(g.comm, g.to), g.comm, g.tag, g.cancelled));
      send_values.push_back(static_cast<int64_t>(m) * 3 + 1);
    }
    if (g.to == me && !g.cancelled) incoming.push_back(m);
  }
  std::shuffle(incoming.begin(), incoming.end(), random);
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<std::size_t>> positions;
  for (std::size_t k = 0; k < incoming.size(); ++k) {
    const Generated& g = table[incoming[k]];
    positions[{g.from, g.comm, g.recorded_tag}].push_back(k);
  }
  for (auto& [channel, slots] : positions) {
    std::vector<uint32_t> ids;
    for (std::size_t k : slots) ids.push_back(incoming[k]);
    std::sort(ids.begin(), ids.end());
    for (std::size_t i = 0; i < slots.size(); ++i) incoming[slots[i]] = ids[i];
  }
  std::vector<int64_t> truth;  // per receive: the value it must get
  for (uint32_t m : incoming) {
    const Generated& g = table[m];
    setup.trace.recvs.push_back(message(comm_rank(g.comm, g.from), g.comm, g.recorded_tag));
    truth.push_back(g.tag == g.recorded_tag ? static_cast<int64_t>(m) * 3 + 1 : kNoValue);
    if (pick(10) == 0) {  // noise: a cancelled receive, a never-matched wildcard
      setup.trace.recvs.push_back(message(pick(n), kWorld, pick(4), true));
      truth.push_back(kNoValue);
      setup.trace.recvs.push_back(message(kNone, kWorld, pick(4)));
      truth.push_back(kNoValue);
    }
  }
  const MessageMatching matching = setup.build();
  const std::vector<int64_t> forward = matching.to_receivers(send_values, MPI_COMM_WORLD);
  EXPECT_EQ(forward, reference::exchange_along_messages(setup.trace.sends, send_values, setup.trace.recvs,
                                             setup.definitions, me, MPI_COMM_WORLD));
  EXPECT_EQ(forward, truth);
  std::vector<int64_t> recv_values(setup.trace.recvs.size());
  for (std::size_t j = 0; j < recv_values.size(); ++j) recv_values[j] = static_cast<int64_t>(j) * 7 + me;
  EXPECT_EQ(matching.to_senders(recv_values, MPI_COMM_WORLD),
            reference::exchange_along_messages(setup.trace.recvs, recv_values, setup.trace.sends,
                                    setup.definitions, me, MPI_COMM_WORLD));
  std::size_t matched = 0;
  for (int64_t value : truth) matched += value != kNoValue ? 1 : 0;
  EXPECT_EQ(matching.matched_recvs(), matched);
}

}  // namespace
}  // namespace orrery::analyzer

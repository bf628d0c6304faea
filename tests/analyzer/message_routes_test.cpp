// MessageMatching's RouteIndex and two-value exchanges (message_routes.cpp):
// a partner names a message by its route number, and the operation this
// rank finds for it is the one an exchange of operation indices along the
// messages names; two values per message arrive as two exchanges would
// bring them. Runs under mpirun with 2, 3 or 4 ranks.

#include <gtest/gtest.h>
#include <mpi.h>

#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "orrery/analyzer/communicators.h"
#include "orrery/analyzer/message_exchange.h"

namespace orrery::analyzer {
namespace {

uint32_t rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return static_cast<uint32_t>(rank);
}

uint32_t size_of(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  return static_cast<uint32_t>(size);
}

MessageOp message(uint32_t peer, uint32_t tag, bool cancelled = false) {
  MessageOp op;
  op.peer = peer;
  op.comm = 0;
  op.tag = tag;
  op.cancelled = cancelled;
  return op;
}

/// Every rank sends every rank (itself too) messages on two tags, with a
/// cancelled send and a cancelled receive in between; the receives are
/// posted in another order than the sends.
struct Exchange {
  Definitions definitions;
  LocalTrace trace;
  std::vector<int64_t> send_indices, recv_indices;

  /// `ring`: instead, three messages to the next rank and three from the
  /// previous one, all matched (the tables are laid out as the matching's
  /// blocks: the RouteIndex needs no tables).
  explicit Exchange(bool ring = false) {
    const uint32_t n = size_of(MPI_COMM_WORLD);
    definitions.ranks.resize(n);
    CommDef world{"world", {}, false};
    for (uint32_t r = 0; r < n; ++r) world.members.push_back(r);
    definitions.comms[0] = world;
    trace.rank = rank_of(MPI_COMM_WORLD);
    if (ring) {
      for (uint32_t k = 0; k < 3; ++k) trace.sends.push_back(message((trace.rank + 1) % n, 1 + k % 2));
      for (uint32_t k = 0; k < 3; ++k) trace.recvs.push_back(message((trace.rank + n - 1) % n, 1 + k % 2));
    } else {
      for (uint32_t to = 0; to < n; ++to) {
        for (uint32_t k = 0; k < 3; ++k) trace.sends.push_back(message(to, 1 + k % 2));
        trace.sends.push_back(message(to, 1, /*cancelled=*/true));
      }
      for (uint32_t from = n; from-- > 0;) {
        trace.recvs.push_back(message(from, 2));
        trace.recvs.push_back(message(from, 2, /*cancelled=*/true));
        trace.recvs.push_back(message(from, 1));
        trace.recvs.push_back(message(from, 1));
      }
    }
    send_indices.resize(trace.sends.size());
    std::iota(send_indices.begin(), send_indices.end(), int64_t{0});
    recv_indices.resize(trace.recvs.size());
    std::iota(recv_indices.begin(), recv_indices.end(), int64_t{0});
  }
};

/// The RouteIndex's lookups against the exchanges of operation indices;
/// `matched`: how many messages found their receive in all.
void expect_routes_name_the_exchanged_indices(Exchange& setup, std::size_t matched_messages) {
  const Communicators comms(setup.definitions, setup.trace.rank, MPI_COMM_WORLD);
  std::string error;
  const MessageMatching matching =
      MessageMatching::build(setup.trace, setup.definitions, comms, MPI_COMM_WORLD, error);
  ASSERT_EQ(error, "");
  const MessageMatching::RouteIndex routes = matching.route_index();
  const std::vector<int64_t> send_of_recv = matching.to_receivers(setup.send_indices, MPI_COMM_WORLD);
  const std::vector<int64_t> recv_of_send = matching.to_senders(setup.recv_indices, MPI_COMM_WORLD);
  // Each side names its messages by route number; the partner looks its
  // own operation up by (this rank, number).
  std::vector<int64_t> recv_numbers(setup.trace.recvs.size(), kNoValue);
  for (std::size_t j = 0; j < recv_numbers.size(); ++j) {
    const MessageMatching::Route route = routes.recv_route(j);
    EXPECT_EQ(route.peer, matching.recv_route(j).peer);
    EXPECT_EQ(route.number, matching.recv_route(j).number);
    EXPECT_EQ(route.peer == kNone, setup.trace.recvs[j].cancelled);
    if (route.peer != kNone) recv_numbers[j] = route.number;
  }
  std::vector<int64_t> send_numbers(setup.trace.sends.size(), kNoValue);
  for (std::size_t i = 0; i < send_numbers.size(); ++i) {
    const MessageMatching::Route route = routes.send_route(i);
    EXPECT_EQ(route.peer, matching.send_route(i).peer);
    EXPECT_EQ(route.number, matching.send_route(i).number);
    EXPECT_EQ(route.peer == kNone, setup.trace.sends[i].cancelled);
    if (route.peer != kNone) send_numbers[i] = route.number;
  }
  // At the senders: the send found by each receive's number.
  const std::vector<int64_t> number_at_send = matching.to_senders(recv_numbers, MPI_COMM_WORLD);
  std::vector<int64_t> found_send(setup.trace.sends.size(), kNoValue);
  for (std::size_t i = 0; i < found_send.size(); ++i) {
    if (number_at_send[i] == kNoValue) continue;
    EXPECT_EQ(number_at_send[i], send_numbers[i]);  // the same number on both sides
    found_send[i] = routes.send_at(setup.trace.sends[i].peer, static_cast<uint32_t>(number_at_send[i]));
  }
  // At the receivers: the receive found by each send's number.
  const std::vector<int64_t> number_at_recv = matching.to_receivers(send_numbers, MPI_COMM_WORLD);
  std::vector<int64_t> found_recv(setup.trace.recvs.size(), kNoValue);
  for (std::size_t j = 0; j < found_recv.size(); ++j) {
    if (number_at_recv[j] == kNoValue) continue;
    found_recv[j] = routes.recv_at(setup.trace.recvs[j].peer, static_cast<uint32_t>(number_at_recv[j]));
  }
  // What the lookups found is what the exchanges of indices name.
  EXPECT_EQ(matching.to_receivers(found_send, MPI_COMM_WORLD), send_of_recv);
  EXPECT_EQ(matching.to_senders(found_recv, MPI_COMM_WORLD), recv_of_send);
  std::size_t matched = 0;
  for (const int64_t send : send_of_recv) matched += send != kNoValue ? 1 : 0;
  EXPECT_EQ(matched, matched_messages);
  // Unknown partners and numbers beyond the block find nothing.
  EXPECT_EQ(routes.send_at(size_of(MPI_COMM_WORLD) + 5, 0), kNone);
  EXPECT_EQ(routes.send_at(0, 1000), kNone);
  EXPECT_EQ(routes.recv_at(0, 1000), kNone);
}

TEST(MessageRoutes, TheOperationFoundByRouteIsTheOneTheIndexExchangeNames) {
  Exchange setup;
  expect_routes_name_the_exchanged_indices(setup, 3 * size_of(MPI_COMM_WORLD));
  // Cancelled operations and several partners: the index keeps its tables.
  std::string error;
  const Communicators comms(setup.definitions, setup.trace.rank, MPI_COMM_WORLD);
  const MessageMatching matching =
      MessageMatching::build(setup.trace, setup.definitions, comms, MPI_COMM_WORLD, error);
  EXPECT_FALSE(matching.route_index().sends_in_place());
  EXPECT_FALSE(matching.route_index().recvs_in_place());
}

TEST(MessageRoutes, TablesLaidOutAsTheBlocksAreLookedUpWithoutAnIndex) {
  Exchange setup(/*ring=*/true);
  expect_routes_name_the_exchanged_indices(setup, 3);
  std::string error;
  const Communicators comms(setup.definitions, setup.trace.rank, MPI_COMM_WORLD);
  const MessageMatching matching =
      MessageMatching::build(setup.trace, setup.definitions, comms, MPI_COMM_WORLD, error);
  ASSERT_EQ(error, "");
  const MessageMatching::RouteIndex routes = matching.route_index();
  EXPECT_TRUE(routes.sends_in_place());
  EXPECT_TRUE(routes.recvs_in_place());
  const uint32_t n = size_of(MPI_COMM_WORLD);
  for (uint32_t k = 0; k < 3; ++k) {
    EXPECT_EQ(routes.send_at((setup.trace.rank + 1) % n, k), k);
    EXPECT_EQ(routes.recv_at((setup.trace.rank + n - 1) % n, k), k);
  }
  EXPECT_EQ(routes.send_at((setup.trace.rank + 1) % n, 3), kNone);
}

TEST(MessageRoutes, TwoValuesPerMessageArriveAsTwoExchangesBringThem) {
  Exchange setup;
  const Communicators comms(setup.definitions, setup.trace.rank, MPI_COMM_WORLD);
  std::string error;
  const MessageMatching matching =
      MessageMatching::build(setup.trace, setup.definitions, comms, MPI_COMM_WORLD, error);
  ASSERT_EQ(error, "");
  std::vector<int64_t> a(setup.send_indices), b(setup.send_indices);
  for (int64_t& value : a) value = value * 7 + setup.trace.rank;
  for (int64_t& value : b) value = -value - 1000 * setup.trace.rank;
  const auto [a_in, b_in] = matching.to_receivers(a, b, MPI_COMM_WORLD);
  EXPECT_EQ(a_in, matching.to_receivers(a, MPI_COMM_WORLD));
  EXPECT_EQ(b_in, matching.to_receivers(b, MPI_COMM_WORLD));
  std::vector<int64_t> c(setup.recv_indices), d(setup.recv_indices);
  for (int64_t& value : c) value = value * 3 + 100 * setup.trace.rank;
  for (int64_t& value : d) value = value - 5;
  const auto [c_back, d_back] = matching.to_senders(c, d, MPI_COMM_WORLD);
  EXPECT_EQ(c_back, matching.to_senders(c, MPI_COMM_WORLD));
  EXPECT_EQ(d_back, matching.to_senders(d, MPI_COMM_WORLD));
  const std::vector<int64_t> longer(a.size() + 1, 0);
  EXPECT_THROW((void)matching.to_receivers(a, longer, MPI_COMM_WORLD), std::invalid_argument);
}

}  // namespace
}  // namespace orrery::analyzer

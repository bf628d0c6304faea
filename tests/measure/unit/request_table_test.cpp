// The live-request table: open addressing with backward-shift deletion,
// checked against a plain reference model under random adds and removes.
#include "request_table.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <random>

namespace orrery::measure {
namespace {

MPI_Request handle(uint64_t n) {
  // Handles a few apart collide often in a small table. (MPI_Request is a
  // pointer in Open MPI, an int in MPICH: build one from its bytes.)
  const uint64_t bits = 0x10000 + 16 * n;
  MPI_Request request{};
  std::memcpy(&request, &bits, sizeof request < sizeof bits ? sizeof request : sizeof bits);
  return request;
}

// Id of the oldest request with this handle, 0 if there is none.
uint64_t oldest(RequestTable& table, MPI_Request request) {
  const RequestInfo* found = table.find(request);
  return found != nullptr ? found->id : 0;
}

TEST(RequestTable, MatchesReferenceModelUnderRandomUse) {
  RequestTable table;
  std::map<uint64_t, std::deque<uint64_t>> model;  // handle -> ids, oldest first
  std::mt19937_64 random(42);
  uint64_t next_id = 1;
  for (int step = 0; step < 200000; ++step) {
    const uint64_t h = random() % 300;
    const unsigned action = static_cast<unsigned>(random() % 10);
    if (action < 5) {
      const bool shared = random() % 4 == 0;
      RequestInfo info;
      info.id = next_id;
      RequestInfo& stored = table.add(handle(h), info, shared);
      ASSERT_EQ(stored.id, next_id);
      auto& queue = model[h];
      if (!shared) queue.clear();
      queue.push_back(next_id++);
    } else {
      table.remove(handle(h));
      auto it = model.find(h);
      if (it != model.end()) {
        it->second.pop_front();
        if (it->second.empty()) model.erase(it);
      }
    }
    if (step % 97 == 0) {
      for (uint64_t k = 0; k < 300; ++k) {
        auto it = model.find(k);
        const uint64_t expected = it == model.end() ? 0 : it->second.front();
        ASSERT_EQ(oldest(table, handle(k)), expected) << "handle " << k << " at step " << step;
      }
      ASSERT_EQ(table.size(), model.size());
    }
  }
}

TEST(RequestTable, SharedHandleQueuesInPostOrder) {
  RequestTable table;
  RequestInfo info;
  for (uint64_t id = 1; id <= 3; ++id) {
    info.id = id;
    table.add(handle(7), info, true);
  }
  for (uint64_t id = 1; id <= 3; ++id) {
    EXPECT_EQ(oldest(table, handle(7)), id);
    table.remove(handle(7));
  }
  EXPECT_EQ(table.find(handle(7)), nullptr);
  info.id = 9;
  table.add(handle(8), info, true);
  info.id = 10;
  table.add(handle(8), info, false);  // not shared: replaces the queue
  EXPECT_EQ(oldest(table, handle(8)), 10u);
  table.remove(handle(8));
  EXPECT_EQ(table.find(handle(8)), nullptr);
  table.clear();
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.find(handle(1)), nullptr);
}

}  // namespace
}  // namespace orrery::measure

#pragma once
// Internal to the delay analysis: the words of a point-to-point record
// (delay_records.cpp), as the waiter writes it and its delayer reads it.
// A record is 32-bit words, each field as wide as its value needs: on a
// communication-heavy trace a record is a message's route number, one
// word of waiting and two or three (call path, ticks) entries of one word
// each: 8 to 10 words, not the 80 bytes of fixed 64-bit fields, so the
// batches copy, touch and fault in 2 to 3 times fewer bytes.
//
//   [0]  kind (bits 0-3) | sync kind (4-5) | flags (6-9) | entries << 16
//        (entries 0xffff: the count follows in a word of its own)
//   [1]  the delayer's operation (the message's route number)
//        the synchronization: a message's route number (1 word), a
//        collective's communicator and ordinal (2 words), or nothing
//        the waiting: 1 word, or 2 with kWideWaiting
//        the waiter's own waiting in the interval: 2 words with kOwnWaiting
//        per entry: the call path (an index both sides share, 1 word, or
//        its key, 2 words with kKeys), its ticks (1 word, 2 with kWideTicks)

#include <cstdint>
#include <utility>
#include <vector>

#include "orrery/replay/delay_events.h"

namespace orrery::analyzer::delay {

/// How the waiter's interval started, so that the delayer starts its own at
/// the same synchronization: a message (by the delayer's operation), a
/// collective instance (communicator, ordinal), or none.
enum class SyncKind : uint32_t { kNone = 0, kMessage = 1, kCollective = 2 };

/// A record's fixed part.
struct RecordHead {
  WaitKind kind = WaitKind::kLateSender;
  SyncKind sync = SyncKind::kNone;
  uint32_t op = 0;            ///< the delayer's operation: its route number
  uint32_t sync_a = 0;        ///< a message's route number, or a communicator
  uint32_t sync_b = 0;        ///< a collective's ordinal
  int64_t waiting = 0;        ///< the wait state's waiting (ticks)
  int64_t own_waiting = 0;    ///< the waiter's own waiting in its interval
  bool keys = false;          ///< entries name call paths by key, not by index
};

namespace record_words {

constexpr uint32_t kWideWaiting = 1u << 6;
constexpr uint32_t kOwnWaiting = 1u << 7;
constexpr uint32_t kWideTicks = 1u << 8;
constexpr uint32_t kKeys = 1u << 9;
constexpr uint32_t kCountFollows = 0xffff;

inline bool fits_word(int64_t value) { return value >= 0 && value <= int64_t{0xffffffff}; }
inline uint32_t* put_wide(uint32_t* at, uint64_t value) {
  at[0] = static_cast<uint32_t>(value);
  at[1] = static_cast<uint32_t>(value >> 32);
  return at + 2;
}
inline uint64_t get_wide(const uint32_t* at) {
  return static_cast<uint64_t>(at[0]) | (static_cast<uint64_t>(at[1]) << 32);
}

}  // namespace record_words

/// Appends one record to `words`: `head`, then `entries` (local call path,
/// ticks > 0). With head.keys, the call paths go as their `key(call path)`
/// (the delayer's call paths differ), else as the indices themselves.
template <class Key>
void append_record(const RecordHead& head, const std::vector<std::pair<uint32_t, int64_t>>& entries,
                   Key key, std::vector<uint32_t>& words) {
  using namespace record_words;
  const std::size_t n = entries.size();
  bool wide_ticks = false;
  for (const auto& entry : entries) wide_ticks |= !fits_word(entry.second);
  uint32_t flags = (head.keys ? kKeys : 0) | (wide_ticks ? kWideTicks : 0) |
                   (fits_word(head.waiting) ? 0 : kWideWaiting) |
                   (head.own_waiting != 0 ? kOwnWaiting : 0);
  const std::size_t start = words.size();
  words.resize(start + 9 + n * 4);  // the most it can take; trimmed below
  uint32_t* at = words.data() + start;
  *at++ = static_cast<uint32_t>(head.kind) | (static_cast<uint32_t>(head.sync) << 4) | flags |
          (static_cast<uint32_t>(n < kCountFollows ? n : kCountFollows) << 16);
  if (n >= kCountFollows) *at++ = static_cast<uint32_t>(n);
  *at++ = head.op;
  if (head.sync != SyncKind::kNone) *at++ = head.sync_a;
  if (head.sync == SyncKind::kCollective) *at++ = head.sync_b;
  if ((flags & kWideWaiting) != 0) {
    at = put_wide(at, static_cast<uint64_t>(head.waiting));
  } else {
    *at++ = static_cast<uint32_t>(head.waiting);
  }
  if ((flags & kOwnWaiting) != 0) at = put_wide(at, static_cast<uint64_t>(head.own_waiting));
  for (const auto& [callpath, ticks] : entries) {
    if (head.keys) {
      at = put_wide(at, key(callpath));
    } else {
      *at++ = callpath;
    }
    if (wide_ticks) {
      at = put_wide(at, static_cast<uint64_t>(ticks));
    } else {
      *at++ = static_cast<uint32_t>(ticks);
    }
  }
  words.resize(static_cast<std::size_t>(at - words.data()));
}

/// Reads the record at `at` (of the words up to `end`) into `head` and
/// hands each entry to `entry(call path index or key, ticks)`; returns
/// where the next record starts, or nullptr if the words end inside it.
template <class Entry>
const uint32_t* read_record(const uint32_t* at, const uint32_t* end, RecordHead& head,
                            Entry entry) {
  using namespace record_words;
  if (end - at < 3) return nullptr;
  const uint32_t word = *at++;
  head.kind = static_cast<WaitKind>(word & 0xf);
  head.sync = static_cast<SyncKind>((word >> 4) & 0x3);
  head.keys = (word & kKeys) != 0;
  std::size_t n = word >> 16;
  if (n == kCountFollows) n = *at++;
  const std::ptrdiff_t entry_words = ((word & kKeys) != 0 ? 2 : 1) + ((word & kWideTicks) != 0 ? 2 : 1);
  const std::ptrdiff_t fixed = 1 + (head.sync == SyncKind::kNone ? 0 : 1) +
                               (head.sync == SyncKind::kCollective ? 1 : 0) +
                               ((word & kWideWaiting) != 0 ? 2 : 1) +
                               ((word & kOwnWaiting) != 0 ? 2 : 0);
  if (end - at < fixed + static_cast<std::ptrdiff_t>(n) * entry_words) return nullptr;
  head.op = *at++;
  head.sync_a = head.sync != SyncKind::kNone ? *at++ : 0;
  head.sync_b = head.sync == SyncKind::kCollective ? *at++ : 0;
  if ((word & kWideWaiting) != 0) {
    head.waiting = static_cast<int64_t>(get_wide(at));
    at += 2;
  } else {
    head.waiting = *at++;
  }
  head.own_waiting = 0;
  if ((word & kOwnWaiting) != 0) {
    head.own_waiting = static_cast<int64_t>(get_wide(at));
    at += 2;
  }
  const bool keys = (word & kKeys) != 0, wide_ticks = (word & kWideTicks) != 0;
  for (std::size_t e = 0; e < n; ++e) {
    uint64_t callpath = *at++;
    if (keys) callpath |= static_cast<uint64_t>(*at++) << 32;
    int64_t ticks = *at++;
    if (wide_ticks) ticks |= static_cast<int64_t>(static_cast<uint64_t>(*at++) << 32);
    entry(callpath, ticks);
  }
  return at;
}

}  // namespace orrery::analyzer::delay

#pragma once
// Internal to the delay analysis: the words of a point-to-point record
// (delay_records.cpp), as the waiter writes it and its delayer reads it.
// A record is 32-bit words, each field as wide as its value needs: on a
// communication-heavy trace a record is a message's route number, one
// word of waiting and two or three (call path, ticks) entries of one word
// each (a small call path index with its short time): 6 to 7 words, not the
// 80 bytes of fixed 64-bit fields, so the batches copy, touch and fault in
// 3 to 4 times fewer bytes. The waiter writes a record as its profile
// comes (RecordWriter: no copy).
//
//   [0]  kind (bits 0-3) | sync kind (4-5) | flags (6-9) | entries << 16
//        (with kCountWord the count is a word of its own, after [0])
//   [1]  the delayer's operation (the message's route number)
//        the synchronization: a message's route number (1 word; none with
//        kSyncPrevious: the message before the operation's), a
//        collective's communicator and ordinal (2 words), or nothing
//        the waiting: 1 word, or 2 with kWideWaiting
//        per entry, by index: one word with kNarrowEntry (bits 20-29 the
//        call path's index, bits 0-19 its ticks), else the index (bit 31:
//        its ticks take 2 words) and its ticks (1 or 2 words); by key
//        (kKeys): the key and the ticks, 2 words each
//        the waiter's own waiting in the interval: 2 words with kOwnWaiting

#include <cstdint>
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
constexpr uint32_t kCountWord = 1u << 8;
constexpr uint32_t kKeys = 1u << 9;
constexpr uint32_t kSyncPrevious = 1u << 10;  ///< the synchronization is message op - 1
constexpr uint32_t kWideTicks = 1u << 31;    ///< in an entry's index word
constexpr uint32_t kNarrowEntry = 1u << 30;  ///< an entry in one word
constexpr uint32_t kNarrowIndexes = 1u << 10;  ///< call paths a narrow entry can name
constexpr int kNarrowTicksBits = 20;
constexpr int64_t kNarrowTicks = int64_t{1} << kNarrowTicksBits;  ///< ticks it can hold
constexpr std::size_t kMostInHead = 0xffff;  ///< entries the first word can count

inline bool fits_word(int64_t value) { return value >= 0 && value <= int64_t{0xffffffff}; }
inline void put_wide(std::vector<uint32_t>& words, uint64_t value) {
  words.push_back(static_cast<uint32_t>(value));
  words.push_back(static_cast<uint32_t>(value >> 32));
}
inline uint64_t get_wide(const uint32_t* at) {
  return static_cast<uint64_t>(at[0]) | (static_cast<uint64_t>(at[1]) << 32);
}

}  // namespace record_words

/// Writes records into `words`: begin (the head without own_waiting),
/// entry per (call path, ticks > 0) of the profile, then end with the
/// waiter's own waiting. `callpaths`: how many this rank has (by index, an
/// index fits in 30 bits; from kMostInHead on, the count takes a word).
class RecordWriter {
 public:
  RecordWriter(std::vector<uint32_t>& words, std::size_t callpaths)
      : words_(words), count_word_(callpaths >= record_words::kMostInHead) {}

  void begin(const RecordHead& head) {
    using namespace record_words;
    start_ = words_.size();
    entries_ = 0;
    keys_ = head.keys;
    const bool previous = head.sync == SyncKind::kMessage && head.sync_a == head.op - 1;
    const uint32_t flags = (head.keys ? kKeys : 0) | (count_word_ ? kCountWord : 0) |
                           (fits_word(head.waiting) ? 0 : kWideWaiting) |
                           (previous ? kSyncPrevious : 0);
    words_.push_back(static_cast<uint32_t>(head.kind) | (static_cast<uint32_t>(head.sync) << 4) |
                     flags);
    if (count_word_) words_.push_back(0);
    words_.push_back(head.op);
    if (head.sync != SyncKind::kNone && !previous) words_.push_back(head.sync_a);
    if (head.sync == SyncKind::kCollective) words_.push_back(head.sync_b);
    if ((flags & kWideWaiting) != 0) {
      put_wide(words_, static_cast<uint64_t>(head.waiting));
    } else {
      words_.push_back(static_cast<uint32_t>(head.waiting));
    }
  }
  /// An entry by index (`callpath`), or by key (`key`) if the head said so.
  void entry(uint32_t callpath, uint64_t key, int64_t ticks) {
    using namespace record_words;
    ++entries_;
    if (keys_) {
      put_wide(words_, key);
      put_wide(words_, static_cast<uint64_t>(ticks));
    } else if (callpath < kNarrowIndexes && ticks >= 0 && ticks < kNarrowTicks) {
      words_.push_back(kNarrowEntry | (callpath << kNarrowTicksBits) | static_cast<uint32_t>(ticks));
    } else if (fits_word(ticks)) {
      words_.push_back(callpath);
      words_.push_back(static_cast<uint32_t>(ticks));
    } else {
      words_.push_back(callpath | kWideTicks);
      put_wide(words_, static_cast<uint64_t>(ticks));
    }
  }
  void end(int64_t own_waiting) {
    using namespace record_words;
    if (own_waiting != 0) {
      words_[start_] |= kOwnWaiting;
      put_wide(words_, static_cast<uint64_t>(own_waiting));
    }
    if (count_word_) {
      words_[start_ + 1] = static_cast<uint32_t>(entries_);
    } else {
      words_[start_] |= static_cast<uint32_t>(entries_) << 16;
    }
  }

 private:
  std::vector<uint32_t>& words_;
  bool count_word_;
  bool keys_ = false;
  std::size_t start_ = 0;
  std::size_t entries_ = 0;
};

/// Reads the record at `at` (of the words up to `end`) into `head` and
/// hands each entry to `entry(call path index or key, ticks)`; returns
/// where the next record starts, or nullptr if the words end inside it
/// (the entries before the end may have been handed out).
template <class Entry>
const uint32_t* read_record(const uint32_t* at, const uint32_t* end, RecordHead& head,
                            Entry entry) {
  using namespace record_words;
  if (end - at < 3) return nullptr;
  const uint32_t word = *at++;
  head.kind = static_cast<WaitKind>(word & 0xf);
  head.sync = static_cast<SyncKind>((word >> 4) & 0x3);
  head.keys = (word & kKeys) != 0;
  const std::size_t n = (word & kCountWord) != 0 ? *at++ : word >> 16;
  const bool previous = (word & kSyncPrevious) != 0;
  const std::ptrdiff_t fixed = 2 + ((word & kWideWaiting) != 0 ? 1 : 0) +
                               static_cast<std::ptrdiff_t>(head.sync) -  // message 1, collective 2
                               (previous ? 1 : 0);
  if (end - at < fixed) return nullptr;
  head.op = *at++;
  head.sync_a = previous ? head.op - 1 : head.sync != SyncKind::kNone ? *at++ : 0;
  head.sync_b = head.sync == SyncKind::kCollective ? *at++ : 0;
  if ((word & kWideWaiting) != 0) {
    head.waiting = static_cast<int64_t>(get_wide(at));
    at += 2;
  } else {
    head.waiting = *at++;
  }
  if (head.keys) {
    if (static_cast<std::size_t>(end - at) < 4 * n) return nullptr;
    for (std::size_t e = 0; e < n; ++e, at += 4) {
      entry(get_wide(at), static_cast<int64_t>(get_wide(at + 2)));
    }
  } else {
    for (std::size_t e = 0; e < n; ++e) {
      if (end - at < 1) return nullptr;
      if ((at[0] & kNarrowEntry) != 0) {
        entry((at[0] & ~kNarrowEntry) >> kNarrowTicksBits,
              static_cast<int64_t>(at[0] & (kNarrowTicks - 1)));
        at += 1;
        continue;
      }
      if (end - at < 2) return nullptr;
      if ((at[0] & kWideTicks) == 0) {
        entry(at[0], static_cast<int64_t>(at[1]));
        at += 2;
      } else {
        if (end - at < 3) return nullptr;
        entry(at[0] & ~kWideTicks, static_cast<int64_t>(get_wide(at + 1)));
        at += 3;
      }
    }
  }
  head.own_waiting = 0;
  if ((word & kOwnWaiting) != 0) {
    if (end - at < 2) return nullptr;
    head.own_waiting = static_cast<int64_t>(get_wide(at));
    at += 2;
  }
  return at;
}

}  // namespace orrery::analyzer::delay

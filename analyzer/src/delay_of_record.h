#pragma once
// Which delay of the DelayPool each incoming record of the delay analysis
// found (delay_records.cpp), kNone for none.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "orrery/trace/ids.h"

namespace orrery::analyzer::delay {

/// Per incoming record, its delay's index in the pool (kNone: none). The
/// records are read in increasing order per source, and usually every one
/// of them finds a delay in that order (one source, or one batch): record r
/// is then delay r, and no table is kept (4 bytes a record of fresh memory
/// saved, millions of records). The table is built the first time a record
/// breaks that pattern.
class DelayOfRecord {
 public:
  /// `records` records, none of them with a delay yet.
  void open(std::size_t records) {
    records_ = records;
    identity_up_to_ = 0;
    table_.clear();
    identity_ = true;
  }
  /// Record `record` found delay `delay`.
  void set(std::size_t record, uint32_t delay) {
    if (identity_ && record == identity_up_to_ && delay == record) {
      ++identity_up_to_;
      return;
    }
    if (identity_) build_table();
    table_[record] = delay;
  }
  [[nodiscard]] uint32_t operator[](std::size_t record) const {
    if (!identity_) return table_[record];
    return record < identity_up_to_ ? static_cast<uint32_t>(record) : kNone;
  }
  [[nodiscard]] std::size_t size() const { return records_; }
  /// Whether no table is kept (record r is delay r up to some record, the
  /// rest have none). For tests.
  [[nodiscard]] bool identity() const { return identity_; }

 private:
  void build_table() {
    table_.assign(records_, kNone);
    for (std::size_t r = 0; r < identity_up_to_; ++r) table_[r] = static_cast<uint32_t>(r);
    identity_ = false;
  }
  std::size_t records_ = 0;
  std::size_t identity_up_to_ = 0;  ///< identity_: records [0, this) are delays [0, this)
  std::vector<uint32_t> table_;     ///< !identity_: per record
  bool identity_ = true;
};

}  // namespace orrery::analyzer::delay

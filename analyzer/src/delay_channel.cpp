// The delay analysis' channel along its wait states (delay_model.h): the
// receivers are discovered once, sparsely (partner_exchange.h), with the
// number of records each will get; the records follow in batches, and
// afterwards one double per record travels without discovery; each round,
// the passing delays pass what arrived on (PassingShares).

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <memory>

#include "delay_model.h"
#include "vmpi.h"

namespace orrery::analyzer::delay {

void RecordChannel::open(const std::vector<uint32_t>& peers,
                         const std::vector<std::size_t>& records, MPI_Comm world) {
  world_ = world;
  std::vector<uint64_t> counts(records.begin(), records.end());
  uint64_t most = 0;
  for (std::size_t k = 0; k < peers.size(); ++k) {
    records_out_.add(peers[k], records[k]);
    most = std::max<uint64_t>(most, records[k]);
  }
  for (const auto& [source, count] : discover_senders(peers, counts, world)) {
    records_in_.add(source, static_cast<std::size_t>(count));
  }
  uint64_t batches = (most + kBatch - 1) / kBatch;
  vmpi::Allreduce(MPI_IN_PLACE, &batches, 1, MPI_UINT64_T, MPI_MAX, world);
  batches_ = static_cast<std::size_t>(batches);
}

void RecordChannel::exchange_batch(std::size_t batch, const std::vector<int64_t>& values,
                                   const std::vector<std::size_t>& sizes, BlockLayout& in,
                                   std::vector<int64_t>& received) const {
  // First the sizes (one per partner with records in the batch), then the values.
  BlockLayout to_one, from_one, to;
  for (std::size_t k = 0, with = 0; k < records_out_.peers.size(); ++k) {
    const auto [first, last] = slice(records_out_.counts[k], batch);
    if (first == last) continue;
    to_one.add(records_out_.peers[k], 1);
    to.add(records_out_.peers[k], sizes[with++]);
  }
  for (std::size_t k = 0; k < records_in_.peers.size(); ++k) {
    const auto [first, last] = slice(records_in_.counts[k], batch);
    if (first != last) from_one.add(records_in_.peers[k], 1);
  }
  std::vector<uint64_t> out_sizes(sizes.begin(), sizes.end()), in_sizes(from_one.total);
  exchange_blocks(out_sizes.data(), to_one, in_sizes.data(), from_one, MPI_UINT64_T, world_);
  in = BlockLayout{};
  for (std::size_t k = 0; k < from_one.peers.size(); ++k) {
    in.add(from_one.peers[k], static_cast<std::size_t>(in_sizes[k]));
  }
  // Reused from batch to batch: its pages are touched once, not per batch.
  if (received.size() < in.total) received.resize(in.total);
  exchange_blocks(values.data(), to, received.data(), in, MPI_INT64_T, world_);
}

std::vector<double> RecordChannel::to_delayers(const std::vector<double>& per_outgoing) const {
  std::vector<double> in(records_in_.total);
  exchange_blocks(per_outgoing.data(), records_out_, in.data(), records_in_, MPI_DOUBLE, world_);
  return in;
}

std::vector<double> RecordChannel::to_waiters(const std::vector<double>& per_incoming) const {
  std::vector<double> out(records_out_.total);
  exchange_blocks(per_incoming.data(), records_in_, out.data(), records_out_, MPI_DOUBLE, world_);
  return out;
}

std::vector<uint8_t> RecordChannel::to_waiters(const std::vector<uint8_t>& per_incoming) const {
  std::vector<uint8_t> out(records_out_.total);
  exchange_blocks(per_incoming.data(), records_in_, out.data(), records_out_, MPI_UINT8_T, world_);
  return out;
}

namespace {

/// The layout of the selected records: per block of `all`, how many of its
/// records `keep` (0 or 1 each) selects; with `record_wait`, the selected
/// records' wait states go to `kept` (reserved at its exact size: millions
/// of records, no doubling).
BlockLayout select(const BlockLayout& all, const std::vector<uint8_t>& keep,
                   const std::vector<uint32_t>* record_wait, std::vector<uint32_t>* kept) {
  BlockLayout selected;
  std::vector<std::size_t> counts(all.peers.size());
  std::size_t total = 0;
  for (std::size_t k = 0; k < all.peers.size(); ++k) {
    // Flags are 0 or 1: their sum is the count (a loop the compiler vectorizes).
    const auto first = keep.begin() + static_cast<std::ptrdiff_t>(all.displs[k]);
    counts[k] = std::accumulate(first, first + static_cast<std::ptrdiff_t>(all.counts[k]),
                                std::size_t{0});
    total += counts[k];
    // Blocks without selected records stay, empty: both sides agree on the peers.
    selected.add(all.peers[k], counts[k]);
  }
  if (kept != nullptr) {
    kept->reserve(total);
    for (std::size_t r = 0; r < all.total; ++r) {
      if (keep[r] != 0) kept->push_back((*record_wait)[r]);
    }
  }
  return selected;
}

}  // namespace

RecordSubset::RecordSubset(const RecordChannel& channel, const std::vector<uint8_t>& keep_in,
                           const std::vector<uint8_t>& keep_out,
                           const std::vector<uint32_t>& record_wait)
    : world_(channel.world()) {
  out_ = select(channel.outgoing_records(), keep_out, &record_wait, &kept_wait_);
  in_ = select(channel.incoming_records(), keep_in, nullptr, nullptr);  // only their number
  send_ = std::make_unique_for_overwrite<double[]>(kept_wait_.size());
  received_.resize(in_.total);
}

const std::vector<double>& RecordSubset::to_delayers(const std::vector<double>& per_wait) {
  for (std::size_t k = 0; k < kept_wait_.size(); ++k) send_[k] = per_wait[kept_wait_[k]];
  exchange_blocks(send_.get(), out_, received_.data(), in_, MPI_DOUBLE, world_);
  return received_;
}

PassingShares::PassingShares(DelayPool& pool, const std::vector<uint32_t>& delay_of_record,
                             std::vector<uint8_t>& passes, std::size_t wait_states)
    : pool_(pool), targeted_(wait_states, false) {
  if (wait_states > kIndexBits) throw_table_too_large();
  passes.assign(delay_of_record.size(), 0);
  std::size_t count = 0;  // exact: most delays pass on a communication-heavy trace
  for (const uint32_t d : delay_of_record) count += d != kNone && passes_on(pool.delays[d]) ? 1 : 0;
  delay_.reserve(count);
  for (std::size_t r = 0; r < delay_of_record.size(); ++r) {
    const uint32_t d = delay_of_record[r];
    if (d == kNone || !passes_on(pool.delays[d])) continue;
    passes[r] = 1;
    delay_.push_back(d);
    // passes_on: waits_total > 0, so the range is not empty.
    const uint32_t end = pool.waits_end(d);
    for (uint32_t w = pool.delays[d].waits_begin; w < end; ++w) {
      OwnWait& own = pool.waits[w];
      const uint32_t wait = own.wait;
      own.wait = wait | (targeted_[wait] ? 0 : kFirst) | (w + 1 == end ? kLast : 0);
      targeted_[wait] = true;
    }
  }
}

void PassingShares::pass_on(const std::vector<double>& arrived, std::vector<double>& next) const {
  const Delay* const delays = pool_.delays.data();
  double* const to = next.data();
  for (std::size_t k = 0; k < delay_.size(); ++k) {
    const Delay& delay = delays[delay_[k]];
    const double amount = (delay.waiting() + arrived[k]) * delay.excess_waiting / delay.total;
    const auto waits_total = static_cast<double>(delay.waits_total);
    // The own wait states up to the one marked last (no end to look up).
    for (uint32_t w = delay.waits_begin;; ++w) {
      const OwnWait own = pool_.waits[w];
      const uint32_t wait = own.wait & kIndexBits;
      const double before = (own.wait & kFirst) != 0 ? 0.0 : to[wait];
      // As share(): nothing for no amount (waits_total > 0: they pass on).
      to[wait] = amount <= 0 ? before
                             : before + amount * static_cast<double>(own.ticks) / waits_total;
      if ((own.wait & kLast) != 0) break;
    }
  }
}

}  // namespace orrery::analyzer::delay

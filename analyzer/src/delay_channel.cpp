// The delay analysis' channel along its wait states (delay_model.h): the
// receivers are discovered once, sparsely (partner_exchange.h), with the
// number of records each will get; the records follow in batches, and
// afterwards one double per record travels without discovery; each round,
// the passing delays pass what arrived on (PassingShares).

#include <algorithm>
#include <cmath>

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
/// records `keep` selects; their indices go to `kept` (if given, reserved
/// at its exact size: millions of records, no doubling).
BlockLayout select(const BlockLayout& all, const std::vector<uint8_t>& keep,
                   std::vector<uint32_t>* kept) {
  if (kept != nullptr) {
    kept->reserve(keep.size() - static_cast<std::size_t>(std::count(keep.begin(), keep.end(), 0)));
  }
  BlockLayout selected;
  for (std::size_t k = 0; k < all.peers.size(); ++k) {
    std::size_t count = 0;
    for (std::size_t r = all.displs[k]; r < all.displs[k] + all.counts[k]; ++r) {
      if (keep[r] == 0) continue;
      if (kept != nullptr) kept->push_back(static_cast<uint32_t>(r));
      ++count;
    }
    // Blocks without selected records stay, empty: both sides agree on the peers.
    selected.add(all.peers[k], count);
  }
  return selected;
}

}  // namespace

RecordSubset::RecordSubset(const RecordChannel& channel, const std::vector<uint8_t>& keep_in,
                           const std::vector<uint8_t>& keep_out,
                           const std::vector<uint32_t>& record_wait)
    : world_(channel.world()) {
  out_ = select(channel.outgoing_records(), keep_out, &kept_wait_);
  ordered_ = true;
  for (std::size_t k = 0; k < kept_wait_.size(); ++k) {
    kept_wait_[k] = record_wait[kept_wait_[k]];
    if (k > 0 && kept_wait_[k] <= kept_wait_[k - 1]) ordered_ = false;
  }
  in_ = select(channel.incoming_records(), keep_in, nullptr);  // only their number is needed
  send_.resize(kept_wait_.size());
  received_.resize(in_.total);
}

const std::vector<double>& RecordSubset::to_delayers(const std::vector<double>& per_wait) {
  for (std::size_t k = 0; k < kept_wait_.size(); ++k) send_[k] = per_wait[kept_wait_[k]];
  return exchange();
}

const std::vector<double>& RecordSubset::exchange() {
  exchange_blocks(send_.data(), out_, received_.data(), in_, MPI_DOUBLE, world_);
  return received_;
}

PassingShares::PassingShares(const DelayPool& pool, std::vector<uint32_t> passing)
    : pool_(pool), delay_(std::move(passing)) {
  make_compact();
}

void PassingShares::make_compact() {
  const auto whole = [](double value, uint32_t& to) {  // a whole tick count below 2^32
    if (!(value >= 0 && value <= 4294967295.0) || value != std::floor(value)) return false;
    to = static_cast<uint32_t>(value);
    return true;
  };
  compact_.reserve(delay_.size());
  for (std::size_t k = 0; k < delay_.size(); ++k) {
    const uint32_t d = delay_[k];
    const Delay& delay = pool_.delays[d];
    const uint32_t begin = delay.waits_begin;
    Compact entry;
    bool fits = pool_.waits_end(d) == begin + 1;
    if (fits) {
      const OwnWait& own = pool_.waits[begin];
      entry.wait = own.wait;
      fits = (k == 0 || own.wait > compact_.back().wait) && own.ticks == delay.waits_total &&
             whole(static_cast<double>(own.ticks), entry.ticks) &&
             whole(delay.waiting(), entry.waiting) &&
             whole(delay.excess_waiting, entry.excess_waiting) && whole(delay.total, entry.total);
    }
    if (!fits) {
      std::vector<Compact>().swap(compact_);
      return;
    }
    compact_.push_back(entry);
  }
  ordered_ = true;
}

void PassingShares::pass_on(const std::vector<double>& arrived, std::vector<double>& next) const {
  const Delay* const delays = pool_.delays.data();
  const std::size_t count = pool_.delays.size();
  const auto total_waits = static_cast<uint32_t>(pool_.waits.size());
  double* const to = next.data();
  for (std::size_t k = 0; k < delay_.size(); ++k) {
    const uint32_t d = delay_[k];
    const Delay& delay = delays[d];
    const double amount = (delay.waiting() + arrived[k]) * delay.excess_waiting / delay.total;
    // As share(): nothing for no amount (waits_total > 0: they pass on).
    if (amount <= 0) continue;
    const double waits_total = static_cast<double>(delay.waits_total);
    const uint32_t end = d + 1 < count ? delays[d + 1].waits_begin : total_waits;
    for (uint32_t w = delay.waits_begin; w < end; ++w) {
      const OwnWait& own = pool_.waits[w];
      to[own.wait] += amount * static_cast<double>(own.ticks) / waits_total;
    }
  }
}

}  // namespace orrery::analyzer::delay

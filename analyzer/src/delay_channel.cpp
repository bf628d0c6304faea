// The delay analysis' channel along its wait states (delay_model.h): the
// receivers are discovered once, sparsely (partner_exchange.h), with the
// number of records each will get; the records follow in batches, and
// afterwards one double per record travels without discovery; each round,
// the passing delays pass what arrived on (PassingShares).

#include <algorithm>

#include "delay_model.h"
#include "delay_rounds.h"
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

namespace {
constexpr int kRecordTag = 0x4f54;  // partner_exchange.cpp has 0x4f52, 0x4f53
}  // namespace

void RecordChannel::send_batch(std::size_t batch, const std::vector<uint32_t>& words,
                               const std::vector<std::size_t>& sizes,
                               std::vector<MPI_Request>& requests) const {
  std::size_t at = 0;
  for (std::size_t k = 0, with = 0; k < records_out_.peers.size(); ++k) {
    const auto [first, last] = slice(records_out_.counts[k], batch);
    if (first == last) continue;
    const std::size_t size = sizes[with++];
    const auto peer = static_cast<int>(records_out_.peers[k]);
    // The receiver takes pieces until one is shorter than kExchangeBlock.
    for (std::size_t done = 0;; done += kExchangeBlock) {
      const std::size_t count = std::min(kExchangeBlock, size - done);
      requests.emplace_back();
      vmpi::Isend(words.data() + at + done, static_cast<int>(count), MPI_UINT32_T, peer,
                  kRecordTag, world_, &requests.back());
      if (count < kExchangeBlock) break;
    }
    at += size;
  }
}

void RecordChannel::wait_sent(std::vector<MPI_Request>& requests) {
  if (!requests.empty()) {
    vmpi::Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  }
  requests.clear();
}

void RecordChannel::receive_batch(std::size_t batch, BlockLayout& in,
                                  std::vector<uint32_t>& received) const {
  in = BlockLayout{};
  std::size_t at = 0;
  for (std::size_t k = 0; k < records_in_.peers.size(); ++k) {
    const auto [first, last] = slice(records_in_.counts[k], batch);
    if (first == last) continue;
    const auto source = static_cast<int>(records_in_.peers[k]);
    const std::size_t begin = at;
    for (;;) {
      MPI_Status status;
      vmpi::Probe(source, kRecordTag, world_, &status);
      int count = 0;
      MPI_Get_count(&status, MPI_UINT32_T, &count);
      const auto words = static_cast<std::size_t>(count);
      // Reused from batch to batch: its pages are touched once, not per batch.
      if (received.size() < at + words) {
        received.reserve(at + words);  // exact: no doubling
        received.resize(at + words);
      }
      vmpi::Recv(received.data() + at, count, MPI_UINT32_T, source, kRecordTag, world_,
                 MPI_STATUS_IGNORE);
      at += words;
      if (words < kExchangeBlock) break;
    }
    in.add(records_in_.peers[k], at - begin);
  }
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

/// The records of `all` split by `keep` (per record): per block, how many
/// it selects and how many not (blocks without any stay, empty: both sides
/// agree on the peers), and per record in order, `label[r]` (`r` itself
/// without labels) to `kept` or `others` if given (sized once, exactly:
/// millions of records, no doubling). Returns the two layouts and
/// whether each list came out strictly ascending.
struct Split {
  BlockLayout kept, others;
  bool ascending = true;
};
Split split(const BlockLayout& all, const std::vector<uint8_t>& keep,
            const std::vector<uint32_t>* label, std::vector<uint32_t>* kept,
            std::vector<uint32_t>* others) {
  const auto marked =
      keep.size() - static_cast<std::size_t>(std::count(keep.begin(), keep.end(), 0));
  // Written by index (sized once: no capacity check per record).
  if (kept != nullptr) kept->resize(marked);
  if (others != nullptr) others->resize(keep.size() - marked);
  uint32_t* const kept_to = kept != nullptr ? kept->data() : nullptr;
  uint32_t* const others_to = others != nullptr ? others->data() : nullptr;
  std::size_t kept_at = 0, others_at = 0;
  uint64_t after_kept = 0, after_other = 0;  // one past the last of each list
  bool ascending = true;
  Split result;
  for (std::size_t k = 0; k < all.peers.size(); ++k) {
    const std::size_t kept_before = kept_at;
    for (std::size_t r = all.displs[k]; r < all.displs[k] + all.counts[k]; ++r) {
      const uint32_t value = label != nullptr ? (*label)[r] : static_cast<uint32_t>(r);
      if (keep[r] != 0) {
        ascending = ascending && value >= after_kept;
        after_kept = uint64_t{value} + 1;
        if (kept_to != nullptr) kept_to[kept_at] = value;
        ++kept_at;
      } else {
        ascending = ascending && value >= after_other;
        after_other = uint64_t{value} + 1;
        if (others_to != nullptr) others_to[others_at] = value;
        ++others_at;
      }
    }
    const std::size_t count = kept_at - kept_before;
    result.kept.add(all.peers[k], count);
    result.others.add(all.peers[k], all.counts[k] - count);
  }
  result.ascending = ascending;
  return result;
}

/// Sets bits in ascending order, a word at a time: one store per word, not
/// a read-modify-write per bit (a chain of store-to-load forwards).
class AscendingBits {
 public:
  explicit AscendingBits(std::vector<uint64_t>& bits) : bits_(bits) {}
  void set(std::size_t i) {
    if ((i >> 6) != word_) {
      flush();
      word_ = i >> 6;
    }
    value_ |= uint64_t{1} << (i & 63);
  }
  void flush() {
    if (value_ != 0) bits_[word_] |= value_;
    value_ = 0;
  }

 private:
  std::vector<uint64_t>& bits_;
  std::size_t word_ = 0;
  uint64_t value_ = 0;
};

}  // namespace

RecordSubset::RecordSubset(const RecordChannel& channel, const std::vector<uint8_t>& keep_in,
                           const std::vector<uint8_t>& keep_out,
                           const std::vector<uint32_t>& record_wait)
    : world_(channel.world()) {
  Split out = split(channel.outgoing_records(), keep_out, &record_wait, &kept_wait_, &other_wait_);
  out_ = std::move(out.kept);
  other_out_ = std::move(out.others);
  ordered_ = out.ascending;
  held_.resize(other_wait_.size());
  Split in = split(channel.incoming_records(), keep_in, nullptr, nullptr, &other_in_record_);
  in_ = std::move(in.kept);  // only their number
  other_in_ = std::move(in.others);
  send_.resize(kept_wait_.size());
  // Room for all incoming records (carry_others), touched only there.
  received_.reserve(keep_in.size());
  received_.resize(in_.total);
}

std::vector<double> RecordSubset::carry_others() {
  std::vector<double> others(other_in_.total);
  exchange_blocks(held_.data(), other_out_, others.data(), other_in_, MPI_DOUBLE, world_);
  std::vector<double> values = std::move(received_);
  std::size_t selected = values.size(), other = others.size();
  values.resize(selected + other);
  // From the back, so that no value received is overwritten before it moved.
  for (std::size_t r = values.size(); r-- > 0;) {
    values[r] = other > 0 && other_in_record_[other - 1] == r ? others[--other] : values[--selected];
  }
  return values;
}

const std::vector<double>& RecordSubset::to_delayers(const std::vector<double>& per_wait) {
  for (std::size_t k = 0; k < kept_wait_.size(); ++k) send_[k] = per_wait[kept_wait_[k]];
  return exchange();
}

const std::vector<double>& RecordSubset::exchange() {
  exchange_blocks(send_.data(), out_, received_.data(), in_, MPI_DOUBLE, world_);
  return received_;
}

PassingShares::PassingShares(const DelayPool& pool, const DelayOfRecord& delay_of_record,
                             const std::vector<uint8_t>& passes, std::size_t waits, bool ordered)
    : pool_(pool) {
  ordered_ = ordered && try_ordered(delay_of_record, passes, waits);
  if (ordered_) return;
  std::vector<uint64_t>().swap(share_bits_);
  std::vector<uint64_t>().swap(delay_bits_);
  // exact: millions of delays, no doubling
  delay_.reserve(passes.size() - static_cast<std::size_t>(std::count(passes.begin(), passes.end(), 0)));
  for (std::size_t r = 0; r < passes.size(); ++r) {
    if (passes[r] != 0) delay_.push_back(delay_of_record[r]);
  }
}

bool PassingShares::try_ordered(const DelayOfRecord& delay_of_record,
                                const std::vector<uint8_t>& passes, std::size_t waits) {
  share_bits_.assign((waits + 63) / 64, 0);
  delay_bits_.assign((pool_.delays.size() + 63) / 64, 0);
  uint64_t after_delay = 0, after_wait = 0;  // one past the last ones
  uint64_t passing = 0;                      // passing delays so far
  AscendingBits share_bits(share_bits_), delay_bits(delay_bits_);
  for (std::size_t r = 0; r < passes.size(); ++r) {
    if (passes[r] == 0) continue;
    const uint32_t d = delay_of_record[r];
    const uint32_t begin = pool_.waits_begin(d);
    if (d < after_delay || pool_.waits_end(d) != begin + 1) return false;
    const OwnWait& own = pool_.waits[begin];
    // Only passing delays keep own waits: the k-th one's is wait k.
    if (begin != passing || own.wait < after_wait || own.wait >= waits) return false;
    ++passing;
    share_bits.set(own.wait);
    delay_bits.set(d);
    after_delay = uint64_t{d} + 1;
    after_wait = uint64_t{own.wait} + 1;
  }
  share_bits.flush();
  delay_bits.flush();
  return true;
}

void PassingShares::pass_on(const std::vector<double>& arrived, std::vector<double>& next) const {
  double* const to = next.data();
  const Delay* const delays = pool_.delays.data();
  if (ordered_) {  // the passing delays in pool order, one own wait state each
    for (std::size_t d = 0, k = 0; d < pool_.delays.size(); ++d) {
      if (!passing(d)) continue;
      const OwnWait& own = pool_.waits[k];
      to[own.wait] += ordered_share(delays[d], own.ticks, arrived[k]);
      ++k;
    }
    return;
  }
  for (std::size_t k = 0; k < delay_.size(); ++k) {
    const uint32_t d = delay_[k];
    const Delay& delay = delays[d];
    const double amount = (delay.waiting() + arrived[k]) * delay.excess_waiting / delay.total;
    // As share(): nothing for no amount (waits_total > 0: they pass on).
    if (amount <= 0) continue;
    const double waits_total = static_cast<double>(pool_.waits_total(d));
    for (uint32_t w = pool_.waits_begin(d), end = pool_.waits_end(d); w < end; ++w) {
      const OwnWait& own = pool_.waits[w];
      to[own.wait] += amount * static_cast<double>(own.ticks) / waits_total;
    }
  }
}

}  // namespace orrery::analyzer::delay

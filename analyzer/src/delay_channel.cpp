// The delay analysis' channel along its wait states (delay_model.h): the
// records go out once, with the receivers discovered sparsely
// (partner_exchange.h); afterwards both sides know how many records each
// partner holds, and one double per record travels without discovery.

#include "delay_model.h"

namespace orrery::analyzer::delay {

std::vector<int64_t> RecordChannel::exchange(const OutgoingRecords& out, MPI_Comm world) {
  world_ = world;
  BlockLayout to;
  std::vector<uint64_t> sizes;
  for (std::size_t k = 0; k < out.peers.size(); ++k) {
    to.add(out.peers[k], out.sizes[k]);
    sizes.push_back(out.sizes[k]);
  }
  for (const auto& [source, count] : discover_senders(out.peers, sizes, world)) {
    values_in_.add(source, static_cast<std::size_t>(count));
  }
  std::vector<int64_t> in(values_in_.total);
  exchange_blocks(out.values.data(), to, in.data(), values_in_, MPI_INT64_T, world);
  return in;
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

namespace {

/// The layout of the selected records: per block of `all`, how many of its
/// records `keep` selects; their indices go to `kept`.
BlockLayout select(const BlockLayout& all, const std::vector<uint8_t>& keep,
                   std::vector<uint32_t>& kept) {
  BlockLayout selected;
  for (std::size_t k = 0; k < all.peers.size(); ++k) {
    std::size_t count = 0;
    for (std::size_t r = all.displs[k]; r < all.displs[k] + all.counts[k]; ++r) {
      if (keep[r] == 0) continue;
      kept.push_back(static_cast<uint32_t>(r));
      ++count;
    }
    // Blocks without selected records stay, empty: both sides agree on the peers.
    selected.add(all.peers[k], count);
  }
  return selected;
}

}  // namespace

RecordSubset::RecordSubset(const RecordChannel& channel, const std::vector<uint8_t>& keep_in)
    : world_(channel.world()) {
  std::vector<double> flags(keep_in.begin(), keep_in.end());
  const std::vector<double> at_waiters = channel.to_waiters(flags);
  std::vector<uint8_t> keep_out(at_waiters.size());
  for (std::size_t r = 0; r < at_waiters.size(); ++r) keep_out[r] = at_waiters[r] != 0 ? 1 : 0;
  out_ = select(channel.outgoing_records(), keep_out, kept_out_);
  in_ = select(channel.incoming_records(), keep_in, kept_in_);
  send_.resize(kept_out_.size());
  received_.resize(kept_in_.size());
}

const std::vector<double>& RecordSubset::to_delayers(const std::vector<double>& per_outgoing) {
  for (std::size_t k = 0; k < kept_out_.size(); ++k) send_[k] = per_outgoing[kept_out_[k]];
  exchange_blocks(send_.data(), out_, received_.data(), in_, MPI_DOUBLE, world_);
  return received_;
}

}  // namespace orrery::analyzer::delay

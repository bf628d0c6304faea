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

}  // namespace orrery::analyzer::delay

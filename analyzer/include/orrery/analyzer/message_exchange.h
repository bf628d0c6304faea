#pragma once
// Carries one value per point-to-point message from one side of the message
// to the other (send enter times forward, receive post times backward).
// Values are matched exactly as MPI matched the traced messages: per
// channel (communicator, sender, receiver, tag) in posting order, with the
// recorded actual source and tag of wildcard receives. All values for one
// peer travel in one block (MPI_Alltoallv), so the cost is linear in the
// number of messages and no rank can wait for another.

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "orrery/analyzer/trace.h"

namespace orrery::analyzer {

/// Value for messages that have none (cancelled, never matched).
inline constexpr int64_t kNoValue = INT64_MIN;

/// Sends values[i] along outgoing[i] (to its peer) and returns, for each
/// incoming[j], the value its peer sent along the matching message
/// (kNoValue if none). Collective over `world`.
[[nodiscard]] std::vector<int64_t> exchange_along_messages(
    const MessageTable& outgoing, const std::vector<int64_t>& values,
    const MessageTable& incoming, const Definitions& definitions, uint32_t self,
    MPI_Comm world);

}  // namespace orrery::analyzer

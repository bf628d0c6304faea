#pragma once
// The reference message matching (see reference_matching.cpp).

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "orrery/analyzer/communicators.h"
#include "orrery/analyzer/message_exchange.h"
#include "orrery/trace/trace.h"

namespace orrery::analyzer::reference {

/// Validates the message tables like MessageMatching::build (collective);
/// returns this rank's error text, empty if fine.
[[nodiscard]] std::string check_messages(const LocalTrace& trace, const Definitions& definitions,
                                         const Communicators& comms, MPI_Comm world);

/// Sends values[i] along outgoing[i] and returns, per incoming[j], the value
/// of its matching message (kNoValue if none). Collective.
[[nodiscard]] std::vector<int64_t> exchange_along_messages(
    const MessageTable& outgoing, const std::vector<int64_t>& values,
    const MessageTable& incoming, const Definitions& definitions, uint32_t self,
    MPI_Comm world);

}  // namespace orrery::analyzer::reference

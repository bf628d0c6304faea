#pragma once
// Events that base patterns raise for the specific ones (STYLE §4): a Late
// Sender instance is found once and refined (wrong order) by subscribers.

#include <cstdint>

#include "orrery/replay/replay_events.h"

namespace orrery::patterns {

/// A call that waited for a late sender.
struct LateSenderFound {
  analyzer::CallContext call;
  int64_t waiting = 0;     ///< ticks
  int64_t send_enter = 0;  ///< enter of the (latest) late send
};

/// A send call that waited for a late receiver.
struct LateReceiverFound {
  analyzer::CallContext call;
  int64_t waiting = 0;
};

}  // namespace orrery::patterns

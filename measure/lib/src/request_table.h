#pragma once
// The live requests of this rank, by handle. MPI libraries may hand out one
// shared, already-completed request object for several operations (Open MPI
// does for eager sends that complete at once and for MPI_PROC_NULL peers), so
// a handle can stand for several live requests: they queue in post order and
// each completion of the handle takes the oldest.

#include <mpi.h>
#include <otf2/OTF2_GeneralDefinitions.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace orrery::measure {

/// What the library remembers about a live request.
struct RequestInfo {
  enum class Kind : uint8_t { kIgnored, kIsend, kIrecv, kCollective };
  Kind kind = Kind::kIgnored;
  bool persistent = false;
  bool active = true;
  bool cancelled = false;
  uint64_t id = 0;
  uint32_t comm = 0;
  int peer = 0;
  int tag = 0;
  uint64_t bytes = 0;
  uint64_t bytes_received = 0;
  uint8_t op = 0;
  uint32_t root = OTF2_UNDEFINED_UINT32;
};

/// Live requests by handle, oldest first for a shared handle.
class RequestTable {
 public:
  /// Adds a request; the reference stays valid until it is removed. A handle
  /// that is not `shared` replaces whatever was recorded for it (a request
  /// object the library reuses after a completion this table did not see).
  RequestInfo& add(MPI_Request handle, const RequestInfo& info, bool shared) {
    auto [it, added] = slots_.try_emplace(handle);
    if (added || !shared) {
      it->second.first = info;
      it->second.more.clear();
      return it->second.first;
    }
    it->second.more.push_back(info);
    return it->second.more.back();
  }
  /// The oldest live request with this handle, or nullptr.
  RequestInfo* find(MPI_Request handle) noexcept {
    auto it = slots_.find(handle);
    return it == slots_.end() ? nullptr : &it->second.first;
  }
  /// Forgets the oldest request with this handle.
  void remove(MPI_Request handle) noexcept {
    auto it = slots_.find(handle);
    if (it == slots_.end()) return;
    Slot& slot = it->second;
    if (slot.more.empty()) {
      slots_.erase(it);
      return;
    }
    slot.first = slot.more.front();
    slot.more.erase(slot.more.begin());
  }
  void clear() noexcept { slots_.clear(); }

 private:
  struct Slot {
    RequestInfo first;
    std::vector<RequestInfo> more;  ///< empty unless the handle is shared
  };
  std::unordered_map<MPI_Request, Slot> slots_;
};

}  // namespace orrery::measure

#pragma once
// The live requests of this rank, by handle. MPI libraries may hand out one
// shared, already-completed request object for several operations (Open MPI
// does for eager sends that complete at once and for MPI_PROC_NULL peers), so
// a handle can stand for several live requests: they queue in post order and
// each completion of the handle takes the oldest.

#include <mpi.h>
#include <otf2/OTF2_GeneralDefinitions.h>

#include <cstdint>
#include <cstring>
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
  const void* poster = nullptr;  ///< the thread's location that posted it (null: the MPI thread)
};

/// Live requests by handle, oldest first for a shared handle. Open
/// addressing (linear probing, backward-shift deletion) in one array: adding
/// and removing a request allocates nothing (a node-based map did a malloc
/// and a free per request, ~150 instructions of a wrapper's ~550).
class RequestTable {
 public:
  /// Adds a request; the reference stays valid until the next add or remove.
  /// A handle that is not `shared` replaces whatever was recorded for it (a
  /// request object the library reuses after a completion this table did not see).
  RequestInfo& add(MPI_Request handle, const RequestInfo& info, bool shared) {
    if (Slot* slot = lookup(handle)) {
      if (!shared) {
        slot->first = info;
        slot->more.clear();
        return slot->first;
      }
      slot->more.push_back(info);
      return slot->more.back();
    }
    if (2 * (used_ + 1) > slots_.size()) grow();
    std::size_t i = home(handle);
    while (slots_[i].used) i = (i + 1) & mask_;
    Slot& slot = slots_[i];
    slot.used = true;
    slot.handle = handle;
    slot.first = info;
    slot.more.clear();
    ++used_;
    return slot.first;
  }
  /// The oldest live request with this handle, or nullptr.
  RequestInfo* find(MPI_Request handle) noexcept {
    Slot* slot = lookup(handle);
    return slot == nullptr ? nullptr : &slot->first;
  }
  /// Of the live requests with this handle, the oldest `poster` posted,
  /// else the oldest; nullptr if none (a shared handle stands for the
  /// requests of several threads: each completes its own first).
  RequestInfo* find(MPI_Request handle, const void* poster) noexcept {
    Slot* slot = lookup(handle);
    if (slot == nullptr) return nullptr;
    if (slot->first.poster == poster) return &slot->first;
    for (RequestInfo& info : slot->more) {
      if (info.poster == poster) return &info;
    }
    return &slot->first;
  }
  /// Forgets the oldest request with this handle.
  void remove(MPI_Request handle) noexcept {
    Slot* slot = lookup(handle);
    if (slot == nullptr) return;
    if (!slot->more.empty()) {
      slot->first = slot->more.front();
      slot->more.erase(slot->more.begin());
      return;
    }
    erase_at(static_cast<std::size_t>(slot - slots_.data()));
  }
  /// Forgets `info`, a request find() returned for this handle.
  void remove(MPI_Request handle, const RequestInfo* info) noexcept {
    Slot* slot = lookup(handle);
    if (slot == nullptr) return;
    for (auto it = slot->more.begin(); it != slot->more.end(); ++it) {
      if (&*it == info) {
        slot->more.erase(it);
        return;
      }
    }
    remove(handle);  // the oldest
  }
  void clear() noexcept {
    slots_.clear();
    used_ = 0;
    mask_ = 0;
  }
  [[nodiscard]] std::size_t size() const noexcept { return used_; }

 private:
  struct Slot {
    bool used = false;
    MPI_Request handle{};
    RequestInfo first;
    std::vector<RequestInfo> more;  ///< empty unless the handle is shared
  };

  [[nodiscard]] std::size_t home(MPI_Request handle) const noexcept {
    uint64_t bits = 0;  // MPI_Request is a pointer (Open MPI) or an int (MPICH)
    std::memcpy(&bits, &handle, sizeof handle < sizeof bits ? sizeof handle : sizeof bits);
    return static_cast<std::size_t>((bits * 0x9E3779B97F4A7C15ULL) >> 32) & mask_;
  }
  static bool same(MPI_Request a, MPI_Request b) noexcept { return std::memcmp(&a, &b, sizeof a) == 0; }

  Slot* lookup(MPI_Request handle) noexcept {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = home(handle);; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (!slot.used) return nullptr;
      if (same(slot.handle, handle)) return &slot;
    }
  }
  // Backward-shift deletion: later slots of the probe run move up into the
  // hole unless that would put them before their home slot.
  void erase_at(std::size_t hole) noexcept {
    for (std::size_t j = (hole + 1) & mask_; slots_[j].used; j = (j + 1) & mask_) {
      const std::size_t h = home(slots_[j].handle);
      if (((j - h) & mask_) >= ((j - hole) & mask_)) {
        slots_[hole] = std::move(slots_[j]);
        hole = j;
      }
    }
    slots_[hole].used = false;
    slots_[hole].more.clear();
    --used_;
  }
  void grow() {
    std::vector<Slot> old(slots_.empty() ? 64 : 2 * slots_.size());
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    used_ = 0;
    for (Slot& slot : old) {
      if (!slot.used) continue;
      std::size_t i = home(slot.handle);
      while (slots_[i].used) i = (i + 1) & mask_;
      slots_[i] = std::move(slot);
      ++used_;
    }
  }

  std::vector<Slot> slots_;
  std::size_t used_ = 0;
  std::size_t mask_ = 0;
};

}  // namespace orrery::measure

// The user region API behind include/orrery/orrery.h.

#include <orrery/orrery.h>

#include <string>
#include <string_view>
#include <unordered_map>

#include "export.h"
#include "program_region.h"
#include "recorder.h"
#include "regions.h"

namespace orrery::measure {
namespace {

constexpr uint32_t kFiltered = UINT32_MAX - 1;

struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

std::unordered_map<std::string, uint32_t, NameHash, std::equal_to<>>* g_user_regions = nullptr;

uint32_t user_region(const char* name) noexcept {
  try {
    if (g_user_regions == nullptr) g_user_regions = new std::unordered_map<std::string, uint32_t, NameHash, std::equal_to<>>();
    const std::string_view key(name);
    if (auto it = g_user_regions->find(key); it != g_user_regions->end()) return it->second;
    uint32_t region = kFiltered;
    if (!g_region_filter.excluded(std::string(key))) {
      region = g_state.definitions.region_by_name(key, Paradigm::kUser, RegionRole::kFunction);
    }
    g_user_regions->emplace(std::string(key), region);
    return region;
  } catch (...) {
    return kFiltered;
  }
}

bool may_record(const char* name) noexcept {
  if (name == nullptr) return false;
  if (!recording_here() && !start_early_recording()) {
    if (g_state.active) g_other_thread_events.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  return true;
}

}  // namespace

void reset_user_regions() noexcept {
  delete g_user_regions;
  g_user_regions = nullptr;
}

}  // namespace orrery::measure

extern "C" ORRERY_EXPORT void orrery_region_begin(const char* name) {
  using namespace orrery::measure;
  if (!may_record(name)) return;
  const uint32_t region = user_region(name);
  if (region != kFiltered) record_enter(region, now());
}

extern "C" ORRERY_EXPORT void orrery_region_end(const char* name) {
  using namespace orrery::measure;
  if (!may_record(name)) return;
  const uint32_t region = user_region(name);
  if (region != kFiltered) record_leave(region, now());
}

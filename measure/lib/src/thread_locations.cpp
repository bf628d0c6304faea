// Worker-thread locations and the OpenMP region table (thread_locations.h).

#include "thread_locations.h"

#include <array>
#include <map>
#include <mutex>
#include <utility>

namespace orrery::measure {

constinit thread_local WorkerLocation* t_worker __attribute__((tls_model("initial-exec"))) = nullptr;
std::atomic<bool> g_workers_record{false};

namespace {

/// The locations live until the process ends: a worker may still be inside
/// a callback when the MPI thread finalizes, so they are never freed.
std::mutex g_locations_mutex;
std::vector<WorkerLocation*>* g_locations = nullptr;
uint32_t g_next_thread = 1;

/// One OpenMP region before it is named.
struct OmpRegionEntry {
  OmpConstruct construct;
  const void* codeptr = nullptr;
};

std::mutex g_regions_mutex;
std::array<OmpRegionEntry, kMaxOmpRegions> g_regions;
std::atomic<uint32_t> g_region_count{0};
std::map<std::pair<const char*, const void*>, uint32_t>* g_region_index = nullptr;

/// A thread's direct-mapped cache of (construct name, code address) -> region id.
struct CacheSlot {
  const char* name;
  const void* codeptr;
  uint32_t region;
};
constexpr std::size_t kCacheSlots = 256;
thread_local std::array<CacheSlot, kCacheSlots> t_region_cache{};

uint32_t define_region(const OmpConstruct& construct, const void* codeptr) noexcept {
  try {
    const std::lock_guard<std::mutex> lock(g_regions_mutex);
    if (g_region_index == nullptr) g_region_index = new std::map<std::pair<const char*, const void*>, uint32_t>();
    const auto key = std::make_pair(construct.name, codeptr);
    if (auto it = g_region_index->find(key); it != g_region_index->end()) return it->second;
    uint32_t index = g_region_count.load(std::memory_order_relaxed);
    if (index == kMaxOmpRegions) {
      // Full: every further construct is counted in the last region.
      index = kMaxOmpRegions - 1;
    } else {
      g_regions[index] = OmpRegionEntry{construct, codeptr};
      g_region_count.store(index + 1, std::memory_order_release);
    }
    g_region_index->emplace(key, kOmpRegionBase + index);
    return kOmpRegionBase + index;
  } catch (...) {
    return kOmpRegionBase + kMaxOmpRegions - 1;
  }
}

}  // namespace

WorkerLocation* register_worker_thread() noexcept {
  if (t_worker != nullptr) return t_worker;
  try {
    auto location = std::make_unique<WorkerLocation>();
    // Spills go to a nameless file in TMPDIR: a thread may start before
    // MPI_Init names the experiment directory.
    location->buffer = std::make_unique<EventBuffer>(g_state.settings.buffer_size, std::string(), g_state.flush_region);
    location->stack.reserve(64);
    const std::lock_guard<std::mutex> lock(g_locations_mutex);
    if (g_locations == nullptr) g_locations = new std::vector<WorkerLocation*>();
    location->thread = g_next_thread++;
    g_locations->push_back(location.get());
    t_worker = location.release();
  } catch (...) {
    t_worker = nullptr;
  }
  return t_worker;
}

void number_worker_thread(uint32_t index) noexcept {
  WorkerLocation* self = t_worker;
  if (self == nullptr || self->numbered || index == 0) return;
  const std::lock_guard<std::mutex> lock(g_locations_mutex);
  self->numbered = true;
  if (g_locations == nullptr || self->thread == index) return;
  for (WorkerLocation* other : *g_locations) {
    if (other != self && other->thread == index) {
      other->thread = self->thread;  // the other worker takes the start number
      break;
    }
  }
  self->thread = index;
}

std::vector<WorkerLocation*> worker_locations() {
  const std::lock_guard<std::mutex> lock(g_locations_mutex);
  return g_locations != nullptr ? *g_locations : std::vector<WorkerLocation*>();
}

void close_worker_regions(uint64_t time) noexcept {
  try {
    for (WorkerLocation* w : worker_locations()) {
      while (!w->stack.empty()) {
        const uint32_t region = w->stack.back();
        w->stack.pop_back();
        w->buffer->leave(time, region);
      }
    }
  } catch (...) {
  }
}

uint32_t omp_region(const OmpConstruct& construct, const void* codeptr) noexcept {
  CacheSlot& slot = t_region_cache[(reinterpret_cast<uintptr_t>(codeptr) >> 2 ^
                                    reinterpret_cast<uintptr_t>(construct.name) >> 3) % kCacheSlots];
  if (slot.name == construct.name && slot.codeptr == codeptr && slot.region != 0) return slot.region;
  const uint32_t region = define_region(construct, codeptr);
  slot = CacheSlot{construct.name, codeptr, region};
  return region;
}

RegionRole omp_region_role(uint32_t region) noexcept {
  if (region < kOmpRegionBase) return RegionRole::kArtificial;
  const uint32_t index = region - kOmpRegionBase;
  // The id came from this thread's cache or the locked table: its entry is visible.
  if (index >= g_region_count.load(std::memory_order_acquire)) return RegionRole::kArtificial;
  return g_regions[index].construct.role;
}

const void* omp_region_codeptr(uint32_t region) noexcept {
  if (region < kOmpRegionBase) return nullptr;
  const uint32_t index = region - kOmpRegionBase;
  if (index >= g_region_count.load(std::memory_order_acquire)) return nullptr;
  return g_regions[index].codeptr;
}

uint32_t omp_region_count() noexcept { return g_region_count.load(std::memory_order_acquire); }

std::vector<uint32_t> define_omp_regions(LocalDefinitions& definitions) {
  const uint32_t count = omp_region_count();
  std::vector<uint32_t> local(kMaxOmpRegions, 0);
  for (uint32_t i = 0; i < count; ++i) {
    const OmpRegionEntry& entry = g_regions[i];
    RegionDef def;
    def.name = entry.construct.name;
    def.paradigm = entry.construct.paradigm;
    def.role = entry.construct.role;
    if (def.paradigm == Paradigm::kOpenmp) {
      const std::string where = describe_code_address(entry.codeptr);
      if (!where.empty()) def.name += " @" + where;
      // Score-P's convention: Scalasca classifies OpenMP regions by this file name.
      def.file = "OMP";
    } else if (def.paradigm == Paradigm::kMpi) {
      def.file = kMpiSourceFile;  // MPI calls on worker threads, as on the MPI thread
    }
    local[i] = definitions.add_region(std::move(def));
  }
  // Ids above the table (never handed out) map to the last defined region.
  for (uint32_t i = count; i < kMaxOmpRegions; ++i) local[i] = count > 0 ? local[count - 1] : 0;
  return local;
}

}  // namespace orrery::measure

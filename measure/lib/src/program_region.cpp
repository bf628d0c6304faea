// The program root region and recording before MPI_Init (program_region.h).

#include "program_region.h"

#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "recorder.h"
#include "regions.h"
#include "settings.h"

namespace orrery::measure {
namespace {

/// The loading thread's t_is_recorder (to take the role away if MPI_Init runs elsewhere).
bool* g_loader_flag = nullptr;
/// Early recording may still start (cleared once it started, or at MPI_Init, or in a fork child).
bool g_early_allowed = false;
std::string g_filter_error;

void forked_child() {
  // A forked child shares the spill file's offset with its parent: it records nothing.
  g_early_allowed = false;
  if (!g_state.active) g_state.hooks = false;
}

__attribute__((constructor)) void on_load() {
  t_is_recorder = true;
  g_loader_flag = &t_is_recorder;
  g_early_allowed = true;
  pthread_atfork(nullptr, nullptr, forked_child);
}

// A process that recorded before MPI_Init but never called it (or not yet
// finished measuring): nothing is written; the anonymous spill file goes away.
__attribute__((destructor)) void on_unload() {
  if (g_state.active) return;
  g_state.hooks = false;
  g_early_allowed = false;
  if (g_state.buffer) g_state.buffer->discard_spill();
}

}  // namespace

std::string executable_name() {
  char path[4096] = {};
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  std::string name = n > 0 ? std::string(path, static_cast<std::size_t>(n)) : program_invocation_short_name;
  if (auto slash = name.rfind('/'); slash != std::string::npos) name.erase(0, slash + 1);
  return name.empty() ? "program" : name;
}

const std::string& early_filter_error() noexcept { return g_filter_error; }

void prepare_recording(const std::string& spill_path) {
  if (g_state.buffer) return;
  std::string warnings;  // printed by rank 0 at MPI_Init
  const Settings settings = read_settings(warnings);
  g_state.fn_region.assign(kFunctionCount, UINT32_MAX);
  g_state.counted_calls.assign(kFunctionCount, 0);
  g_state.stack.reserve(256);
  RegionDef flush;
  flush.name = "ORRERY_FLUSH";
  flush.paradigm = Paradigm::kMeasurement;
  flush.role = RegionRole::kArtificial;
  g_state.flush_region = g_state.definitions.add_region(std::move(flush));
  RegionDef root;
  root.name = executable_name();
  root.paradigm = Paradigm::kMeasurement;
  root.role = RegionRole::kArtificial;
  g_state.root_region = g_state.definitions.add_region(std::move(root));
  if (!settings.filter_path.empty() && !g_region_filter.load(settings.filter_path, g_filter_error)) {
    g_region_filter = Filter();
  }
  g_state.profile = settings.mode == "profile";
  g_state.buffer = std::make_unique<EventBuffer>(settings.buffer_size, spill_path, g_state.flush_region);
  record_enter(g_state.root_region, g_load_time);
}

bool start_early_recording() noexcept {
  if (!g_early_allowed || !t_is_recorder || g_state.active) return false;
  g_early_allowed = false;  // one attempt
  try {
    prepare_recording("");
    g_state.hooks = true;
  } catch (...) {
    discard_recording();
  }
  return g_state.hooks;
}

bool claim_recording_thread() noexcept {
  g_early_allowed = false;
  if (t_is_recorder) return true;
  if (g_loader_flag != nullptr) *g_loader_flag = false;
  t_is_recorder = true;
  if (!g_state.buffer) return true;
  // The loading thread may be inside a hook right now: stop it first and leave
  // its buffer allocated (leaked) rather than free memory it may still touch.
  g_state.hooks = false;
  g_state.buffer->discard_spill();
  (void)g_state.buffer.release();
  discard_recording();
  return false;
}

void discard_recording() noexcept {
  g_state.hooks = false;
  if (g_state.buffer) g_state.buffer->discard_spill();
  g_state.buffer.reset();
  g_state.tree.clear();
  g_state.stack.clear();
  g_state.definitions = LocalDefinitions();
  g_state.fn_region.clear();
  g_state.counted_calls.clear();
  g_state.root_region = UINT32_MAX;
  g_region_filter = Filter();
  reset_region_caches();
  reset_user_regions();
}

}  // namespace orrery::measure

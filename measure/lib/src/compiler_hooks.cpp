// __cyg_profile_func_enter/exit for binaries built with -finstrument-functions.
// Hot path: one direct-mapped cache probe keyed by the function address; the
// symbol is looked up (libdw, demangled, filtered) once per function.

#include <cxxabi.h>
#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "export.h"
#include "program_region.h"
#include "recorder.h"
#include "regions.h"
#include "thread_locations.h"

#define ORRERY_NO_INSTRUMENT __attribute__((no_instrument_function))

namespace orrery::measure {

Filter g_region_filter;

namespace {

constexpr uint32_t kFiltered = UINT32_MAX - 1;
constexpr std::size_t kSlots = 4096;

struct Slot {
  const void* function;
  uint32_t region;
};

Slot g_cache[kSlots];
std::unordered_map<const void*, uint32_t>* g_known = nullptr;
Dwfl* g_dwfl = nullptr;
Dwfl_Callbacks g_dwfl_callbacks = {dwfl_linux_proc_find_elf, dwfl_standard_find_debuginfo, nullptr, nullptr};

ORRERY_NO_INSTRUMENT Dwfl* dwfl() noexcept {
  if (g_dwfl == nullptr) {
    g_dwfl = dwfl_begin(&g_dwfl_callbacks);
    if (g_dwfl != nullptr) {
      dwfl_linux_proc_report(g_dwfl, getpid());
      dwfl_report_end(g_dwfl, nullptr, nullptr);
    }
  }
  return g_dwfl;
}

ORRERY_NO_INSTRUMENT std::string demangle(const char* symbol) {
  int status = 0;
  char* plain = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
  std::string name = status == 0 && plain != nullptr ? plain : symbol;
  std::free(plain);
  return name;
}

ORRERY_NO_INSTRUMENT std::string symbol_name(const void* function) {
  const auto address = reinterpret_cast<Dwarf_Addr>(function);
  if (Dwfl* d = dwfl()) {
    if (Dwfl_Module* module = dwfl_addrmodule(d, address)) {
      if (const char* name = dwfl_module_addrname(module, address)) return demangle(name);
    }
  }
  Dl_info info{};
  if (dladdr(function, &info) != 0 && info.dli_sname != nullptr) return demangle(info.dli_sname);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%p", function);
  return buffer;
}

ORRERY_NO_INSTRUMENT bool in_this_library(const void* function) noexcept {
  static Dl_info self{};
  static const bool known = dladdr(reinterpret_cast<void*>(&g_cache), &self) != 0;
  Dl_info info{};
  return known && dladdr(function, &info) != 0 && info.dli_fbase == self.dli_fbase;
}

ORRERY_NO_INSTRUMENT uint32_t define_function(const void* function) noexcept {
  try {
    if (g_known == nullptr) g_known = new std::unordered_map<const void*, uint32_t>();
    if (auto it = g_known->find(function); it != g_known->end()) return it->second;
    uint32_t region = kFiltered;
    if (!in_this_library(function)) {
      std::string name = symbol_name(function);
      if (!g_region_filter.excluded(name)) {
        RegionDef def;
        def.name = std::move(name);
        def.paradigm = Paradigm::kCompiler;
        def.address = function;
        region = g_state.definitions.add_region(std::move(def));
      }
    }
    g_known->emplace(function, region);
    return region;
  } catch (...) {
    return kFiltered;
  }
}

ORRERY_NO_INSTRUMENT inline uint32_t function_region(const void* function) noexcept {
  Slot& slot = g_cache[(reinterpret_cast<uintptr_t>(function) >> 4) & (kSlots - 1)];
  if (slot.function == function) return slot.region;
  const uint32_t region = define_function(function);
  slot = {function, region};
  return region;
}

}  // namespace

void resolve_source_locations() noexcept {
  for (RegionDef& region : g_state.definitions.regions()) {
    if (region.paradigm != Paradigm::kCompiler || region.address == nullptr) continue;
    Dwfl* d = dwfl();
    if (d == nullptr) return;
    const auto address = reinterpret_cast<Dwarf_Addr>(region.address);
    Dwfl_Module* module = dwfl_addrmodule(d, address);
    Dwfl_Line* line = module != nullptr ? dwfl_module_getsrc(module, address) : nullptr;
    if (line == nullptr) continue;
    int number = 0;
    if (const char* file = dwfl_lineinfo(line, nullptr, &number, nullptr, nullptr, nullptr)) {
      try {
        region.file = file;
        region.line = number > 0 ? static_cast<uint32_t>(number) : 0;
      } catch (...) {
      }
    }
  }
}

std::string describe_code_address(const void* address) {
  if (address == nullptr) return {};
  const auto where = reinterpret_cast<Dwarf_Addr>(address);
  if (Dwfl* d = dwfl()) {
    if (Dwfl_Module* module = dwfl_addrmodule(d, where)) {
      // A return address points after the call: the call's line is at address - 1.
      if (Dwfl_Line* line = dwfl_module_getsrc(module, where - 1)) {
        int number = 0;
        if (const char* file = dwfl_lineinfo(line, nullptr, &number, nullptr, nullptr, nullptr)) {
          std::string name = file;
          if (auto slash = name.rfind('/'); slash != std::string::npos) name.erase(0, slash + 1);
          return number > 0 ? name + ":" + std::to_string(number) : name;
        }
      }
      // No line: the function and the offset keep call sites apart.
      GElf_Off offset = 0;
      GElf_Sym symbol_entry;
      if (const char* symbol = dwfl_module_addrinfo(module, where - 1, &offset, &symbol_entry, nullptr, nullptr,
                                                    nullptr)) {
        char hex[32];
        std::snprintf(hex, sizeof hex, "+0x%llx", static_cast<unsigned long long>(offset + 1));
        return demangle(symbol) + hex;
      }
    }
  }
  return {};
}

void reset_region_caches() noexcept {
  std::memset(static_cast<void*>(g_cache), 0, sizeof g_cache);
  delete g_known;
  g_known = nullptr;
  if (g_dwfl != nullptr) dwfl_end(g_dwfl);
  g_dwfl = nullptr;
}

}  // namespace orrery::measure

using orrery::measure::g_state;

extern "C" ORRERY_EXPORT ORRERY_NO_INSTRUMENT void __cyg_profile_func_enter(void* function, void* /*call_site*/) {
  if (!orrery::measure::recording_here() && !orrery::measure::start_early_recording()) {
    if (g_state.active) orrery::measure::g_other_thread_events.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const uint32_t region = orrery::measure::function_region(function);
  if (region != orrery::measure::kFiltered) orrery::measure::record_enter(region, orrery::measure::now());
}

extern "C" ORRERY_EXPORT ORRERY_NO_INSTRUMENT void __cyg_profile_func_exit(void* function, void* /*call_site*/) {
  if (!orrery::measure::recording_here()) return;
  const uint32_t region = orrery::measure::function_region(function);
  if (region != orrery::measure::kFiltered) orrery::measure::record_leave(region, orrery::measure::now());
}

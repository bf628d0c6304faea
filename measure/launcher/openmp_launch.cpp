// OpenMP programs under `orrery run` (openmp_launch.h).

#include "openmp_launch.h"

#include <elf.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "launch_line.h"

namespace orrery::measure {
namespace {

template <typename T>
bool read_at(const std::vector<char>& bytes, std::size_t offset, T& out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, bytes.data() + offset, sizeof(T));
  return true;
}

bool executable_file(const std::string& path) { return !path.empty() && ::access(path.c_str(), R_OK) == 0; }

/// Which OpenMP runtime a DT_NEEDED name is ("" if none).
std::string runtime_of(const std::string& library) {
  for (const char* runtime : {"libgomp", "libomp", "libiomp5"}) {
    const std::string prefix = std::string(runtime) + ".so";
    if (library.rfind(prefix, 0) == 0) return runtime;
  }
  return {};
}

}  // namespace

std::vector<std::string> needed_libraries(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Elf64_Ehdr header;
  if (!read_at(bytes, 0, header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64) {
    return {};
  }
  std::vector<std::string> needed;
  for (unsigned i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr section;
    if (!read_at(bytes, header.e_shoff + std::size_t{i} * header.e_shentsize, section)) return {};
    if (section.sh_type != SHT_DYNAMIC) continue;
    Elf64_Shdr strings;
    if (!read_at(bytes, header.e_shoff + std::size_t{section.sh_link} * header.e_shentsize, strings)) return {};
    for (std::size_t at = section.sh_offset; at + sizeof(Elf64_Dyn) <= section.sh_offset + section.sh_size;
         at += sizeof(Elf64_Dyn)) {
      Elf64_Dyn entry;
      if (!read_at(bytes, at, entry) || entry.d_tag == DT_NULL) break;
      if (entry.d_tag != DT_NEEDED) continue;
      const std::size_t name = strings.sh_offset + entry.d_un.d_val;
      if (name >= bytes.size()) continue;
      const char* begin = bytes.data() + name;
      needed.emplace_back(begin, strnlen(begin, bytes.size() - name));
    }
  }
  return needed;
}

std::string find_libomp() {
  if (const char* chosen = std::getenv("ORRERY_LIBOMP"); chosen != nullptr && *chosen != '\0') {
    return executable_file(chosen) ? chosen : std::string();
  }
#ifdef ORRERY_LIBOMP_PATH
  if (executable_file(ORRERY_LIBOMP_PATH)) return ORRERY_LIBOMP_PATH;
#endif
  for (const char* candidate : {"/usr/lib/x86_64-linux-gnu/libomp.so.5", "/usr/lib/aarch64-linux-gnu/libomp.so.5",
                                "/usr/lib/libomp.so.5", "/usr/local/lib/libomp.so"}) {
    if (executable_file(candidate)) return candidate;
  }
  return {};
}

OpenMpPlan plan_openmp(const std::string& program, bool disabled) {
  OpenMpPlan plan;
  plan.disabled = disabled;
  const std::string path = program.empty() ? std::string() : find_in_path(program);
  for (const std::string& library : needed_libraries(path)) {
    if (plan.program_runtime.empty()) plan.program_runtime = runtime_of(library);
  }
  if (plan.program_runtime.empty() || disabled) return plan;
  if (plan.program_runtime != "libgomp") {
    plan.measured = true;  // LLVM's and Intel's runtimes start OMPT tools themselves
    return plan;
  }
  plan.preload = find_libomp();
  plan.measured = !plan.preload.empty();
  if (!plan.measured) {
    plan.note = "'" + program + "' uses GCC's OpenMP runtime (libgomp), which has no tool interface, and "
                "LLVM's libomp (Debian package libomp-dev; or set ORRERY_LIBOMP) was not found: its "
                "OpenMP threads are not measured, only MPI";
  }
  return plan;
}

nlohmann::json OpenMpPlan::record() const {
  if (program_runtime.empty()) return nullptr;
  return {{"program_runtime", program_runtime},
          {"runtime", measured ? (preload.empty() ? program_runtime : std::string("libomp")) : program_runtime},
          {"preloaded", preload.empty() ? nlohmann::json(nullptr) : nlohmann::json(preload)},
          {"measured", measured},
          {"disabled", disabled}};
}

}  // namespace orrery::measure

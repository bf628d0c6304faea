// A light look at the ELF file, enough for a hint in a warning: static
// executables have no PT_INTERP program header, and a dynamically linked MPI
// program names libmpi in its dynamic string table.

#include "binary_check.h"

#include <elf.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <vector>

#include "launch_line.h"

namespace orrery::measure {
namespace {

bool has_interpreter(const std::vector<char>& bytes) {
  if (bytes.size() < sizeof(Elf64_Ehdr) || bytes[EI_CLASS] != ELFCLASS64) return true;
  Elf64_Ehdr header;
  std::copy_n(bytes.data(), sizeof header, reinterpret_cast<char*>(&header));
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    const std::size_t offset = header.e_phoff + std::size_t{i} * header.e_phentsize;
    if (offset + sizeof(Elf64_Phdr) > bytes.size()) return true;
    Elf64_Phdr program_header;
    std::copy_n(bytes.data() + offset, sizeof program_header,
                reinterpret_cast<char*>(&program_header));
    if (program_header.p_type == PT_INTERP) return true;
  }
  return false;
}

bool mentions(const std::vector<char>& bytes, const std::string& text) {
  return std::search(bytes.begin(), bytes.end(), text.begin(), text.end()) != bytes.end();
}

}  // namespace

std::string explain_untraceable_program(const std::string& program) {
  if (program.empty()) return {};
  const std::string path = find_in_path(program);
  if (path.empty()) return "'" + program + "' was not found or is not executable";
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 4) return {};
  if (bytes[0] == '#' && bytes[1] == '!') {
    return "'" + program + "' is a script; the MPI program it starts must be dynamically linked";
  }
  if (!(bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F')) return {};
  if (!has_interpreter(bytes)) {
    return "'" + program + "' is statically linked, so LD_PRELOAD cannot intercept its MPI calls; "
           "link it dynamically or use orrery-instrument";
  }
  if (!mentions(bytes, "libmpi")) return "'" + program + "' is not linked with MPI";
  return {};
}

}  // namespace orrery::measure

// libFuzzer target: the readers of an experiment's JSON metadata (run.json,
// the per-rank markers of an incomplete run) on arbitrary bytes. They must
// fall back to defaults, never crash or allocate without bound.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "fuzz_support.h"
#include "orrery/analyzer/incomplete.h"
#include "orrery/analyzer/program_root.h"
#include "orrery/error.h"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  static const fs::path dir = fs::path(orrery::fuzz::scratch_path("metadata"));
  static const bool made = fs::create_directories(dir / "incomplete") || true;
  (void)made;
  orrery::fuzz::write_file((dir / "run.json").string(), data, size);
  orrery::fuzz::write_file((dir / "incomplete" / "rank-0.json").string(), data, size);
  try {
    (void)orrery::analyzer::program_name(dir.string());
    (void)orrery::analyzer::incomplete_reason(dir.string(), 0);
  } catch (const orrery::Error&) {
    // a clean refusal is fine too
  }
  return 0;
}

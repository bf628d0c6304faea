// libFuzzer target: the MPI-free trace reader (the analyzer's and the
// viewer's) on a damaged OTF2 archive. The archive is a copy of a template
// experiment ($ORRERY_FUZZ_TRACE_TEMPLATE, made by tests/fuzz/run_fuzz.sh);
// the input replaces one of its files: the first byte chooses which (even:
// rank 0's events, odd: the global definitions), the rest is its content.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "fuzz_support.h"
#include "orrery/trace/trace.h"
#include "orrery/trace/trace_reader.h"
#include "orrery/error.h"

namespace fs = std::filesystem;

namespace {

/// The scratch copy of the template experiment (copied once per process).
const std::string& experiment() {
  static const std::string dir = [] {
    const char* source = std::getenv("ORRERY_FUZZ_TRACE_TEMPLATE");
    if (source == nullptr || !fs::exists(fs::path(source) / "traces.otf2")) {
      std::fprintf(stderr, "set ORRERY_FUZZ_TRACE_TEMPLATE to an experiment directory\n");
      std::abort();
    }
    const fs::path copy = fs::path(orrery::fuzz::scratch_path("experiment"));
    fs::remove_all(copy);
    fs::copy(source, copy, fs::copy_options::recursive);
    return copy.string();
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const std::string& dir = experiment();
  const fs::path target = (data[0] % 2 == 0) ? fs::path(dir) / "traces" / "0.evt"
                                             : fs::path(dir) / "traces.def";
  const fs::path saved = target.string() + ".orig";
  if (!fs::exists(saved)) {
    fs::copy_file(target, saved);
  }
  if (!orrery::fuzz::write_file(target.string(), data + 1, size - 1)) {
    return 0;
  }
  try {
    orrery::analyzer::Definitions definitions = orrery::analyzer::read_definitions(dir);
    orrery::analyzer::LocalTrace trace;
    orrery::analyzer::read_rank_trace(dir, definitions, 0, trace);
  } catch (const orrery::Error&) {
    // the expected answer to a damaged trace
  }
  fs::copy_file(saved, target, fs::copy_options::overwrite_existing);  // the next input starts whole
  return 0;
}

// libFuzzer target: arbitrary bytes as a report.h5 through the report reader,
// as `orrery info`, `stat` and `view` read it (header, every metric, one row),
// and the function groups as `orrery imbalance` reads them.
// Any crash, sanitizer report, hang or allocation above the fuzzer's limit is
// a finding; a clean orrery::Error is the expected answer to damage.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include <hdf5.h>

#include "fuzz_support.h"
#include "orrery/error.h"
#include "orrery/report/groups.h"
#include "orrery/report/hdf5_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  static const std::string path = orrery::fuzz::scratch_path("report.h5");
  if (!orrery::fuzz::write_file(path, data, size)) {
    return 0;
  }
  try {
    const orrery::report::CubeReader reader(path);
    const auto& header = reader.header();
    for (std::size_t row = 0; row < header.metrics.size(); ++row) {
      (void)reader.read_metric(row);
      if (!header.callpaths.empty()) {
        (void)reader.read_callpath(row, header.callpaths.size() - 1);
      }
    }
    (void)orrery::report::read_function_groups(path, header.locations.size());
  } catch (const orrery::Error&) {
    // the expected answer to a damaged file
  }
  // Each input starts with empty HDF5 free lists: a damaged file can leave
  // them inconsistent, and a crash that needs an earlier input's leftovers
  // cannot be replayed from its own input (CI met one).
  H5garbage_collect();
  return 0;
}

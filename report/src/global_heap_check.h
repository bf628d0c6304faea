#pragma once
// Checks the HDF5 global heap collections of a file before HDF5 reads them.
//
// Variable-length strings (every name in a report's tables and attributes)
// live in global heap collections ("GCOL"). HDF5 1.10 walks a collection's
// object list trusting each object's size: a size of zero loops forever, a
// size past the collection's end makes later reads copy out of bounds (both
// found by fuzzing the report reader). This walks every collection the way
// HDF5 will and refuses the file if any walk would not end cleanly.

#include <cstdint>
#include <string>

namespace orrery::report {

/// Throws InputError naming `path` if a global heap collection in the file is
/// corrupt (an object list HDF5 would loop on or read past).
void check_global_heaps(const std::string& path);

}  // namespace orrery::report

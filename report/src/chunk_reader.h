#pragma once
// Reads a whole 2-D float64 dataset by decompressing its chunks on several
// threads. HDF5 runs its filters on the calling thread only (and the
// thread-safe library serializes calls), so for a large compressed metric the
// inflate step dominates; here HDF5 only hands over the raw chunks and zlib
// runs in parallel. Handles what Orrery and h5py write (deflate, optionally
// after shuffle, zero fill); anything else is left to H5Dread.

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace orrery::report {

/// How decoded values reach the caller's buffer.
enum class ChunkSink { kStore, kAdd };

/// Stores (or adds) `dataset` into `out` (rows x columns doubles); false if the
/// dataset's layout or filters are not ones this reader handles (then `out` is
/// untouched). Throws InputError (naming `file`) if a chunk is corrupt or its
/// stored sizes cannot be true of a file of `file_size` bytes.
bool read_chunks_in_parallel(hid_t dataset, const std::string& file, const std::string& what,
                             std::size_t rows, std::size_t columns, std::uintmax_t file_size,
                             ChunkSink sink, double* out);

}  // namespace orrery::report

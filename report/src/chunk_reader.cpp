#include "chunk_reader.h"

#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "hdf5_handle.h"

namespace orrery::report {
namespace {

/// The filter pipeline this reader can undo.
struct Pipeline {
  bool shuffle = false;        ///< byte shuffle before deflate
  int shuffle_index = -1;      ///< position in the pipeline (for the skip mask)
  int deflate_index = -1;
};

/// A chunk's raw bytes as stored and where its values go.
struct RawChunk {
  hsize_t row = 0;
  hsize_t column = 0;
  uint32_t skipped_filters = 0;
  std::vector<unsigned char> bytes;  ///< empty: never written, all zero
};

std::optional<Pipeline> supported_pipeline(hid_t creation) {
  Pipeline pipeline;
  const int filters = H5Pget_nfilters(creation);
  if (filters < 0 || filters > 2) {
    return std::nullopt;
  }
  for (int i = 0; i < filters; ++i) {
    unsigned flags = 0;
    std::size_t count = 0;
    unsigned values[8] = {};
    unsigned config = 0;
    char name[64];
    const H5Z_filter_t filter =
        H5Pget_filter2(creation, static_cast<unsigned>(i), &flags, &count, values, sizeof name,
                       name, &config);
    if (filter == H5Z_FILTER_SHUFFLE && i == 0) {
      pipeline.shuffle = true;
      pipeline.shuffle_index = i;
    } else if (filter == H5Z_FILTER_DEFLATE && pipeline.deflate_index < 0) {
      pipeline.deflate_index = i;
    } else {
      return std::nullopt;
    }
  }
  return pipeline;
}

bool zero_fill(hid_t creation) {
  H5D_fill_value_t status{};
  if (H5Pfill_value_defined(creation, &status) < 0) {
    return false;
  }
  if (status == H5D_FILL_VALUE_UNDEFINED || status == H5D_FILL_VALUE_DEFAULT) {
    return true;
  }
  double fill = 1.0;
  return H5Pget_fill_value(creation, H5T_NATIVE_DOUBLE, &fill) >= 0 && fill == 0.0;
}

/// Undoes the pipeline on one chunk into `values` (chunk_elements doubles); false if corrupt.
bool decode_chunk(const Pipeline& pipeline, const RawChunk& chunk, std::size_t chunk_elements,
                  std::vector<unsigned char>& scratch, double* values) {
  const std::size_t size = chunk_elements * sizeof(double);
  auto* target = reinterpret_cast<unsigned char*>(values);
  const bool inflate = pipeline.deflate_index >= 0 &&
                       (chunk.skipped_filters & (1u << pipeline.deflate_index)) == 0;
  const bool unshuffle = pipeline.shuffle &&
                         (chunk.skipped_filters & (1u << pipeline.shuffle_index)) == 0;
  const unsigned char* plain = chunk.bytes.data();
  if (inflate) {
    unsigned char* destination = unshuffle ? scratch.data() : target;
    uLongf length = size;
    if (uncompress(destination, &length, chunk.bytes.data(), chunk.bytes.size()) != Z_OK ||
        length != size) {
      return false;
    }
    plain = destination;
  } else if (chunk.bytes.size() != size) {
    return false;
  }
  if (unshuffle) {
    // Shuffle stored byte b of element i at b * n + i; gather the 8 lanes in one pass.
    const std::size_t n = chunk_elements;
    for (std::size_t i = 0; i < n; ++i) {
      uint64_t word = 0;
      for (std::size_t b = 0; b < sizeof(double); ++b) {
        word |= static_cast<uint64_t>(plain[b * n + i]) << (8 * b);
      }
      std::memcpy(target + i * sizeof(double), &word, sizeof word);
    }
  } else if (plain != target) {
    std::memcpy(target, plain, size);
  }
  return true;
}

/// A chunk larger than its dataset (and than any chunk a writer would choose)
/// can only be a corrupt size; it would make every reader allocate it.
void check_chunk_shape(const hsize_t chunk_dims[2], std::size_t rows, std::size_t columns,
                       const std::string& file, const std::string& what) {
  constexpr hsize_t kLargestPlausibleChunk = hsize_t{1} << 24;  // elements (128 MiB of doubles)
  const bool within_dataset = chunk_dims[0] <= rows && chunk_dims[1] <= columns;
  const bool plausible = chunk_dims[0] <= kLargestPlausibleChunk &&
                         chunk_dims[1] <= kLargestPlausibleChunk &&
                         chunk_dims[0] * chunk_dims[1] <= kLargestPlausibleChunk;
  if (!within_dataset && !plausible) {
    h5::fail(file, what + ": its chunk size " + std::to_string(chunk_dims[0]) + " x " +
                       std::to_string(chunk_dims[1]) + " is corrupt");
  }
}

}  // namespace

bool read_chunks_in_parallel(hid_t dataset, const std::string& file, const std::string& what,
                             std::size_t rows, std::size_t columns, std::uintmax_t file_size,
                             ChunkSink sink, double* out) {
  if constexpr (std::endian::native != std::endian::little) {
    return false;
  }
  h5::Handle type(H5Dget_type(dataset), H5Tclose);
  h5::Handle creation(H5Dget_create_plist(dataset), H5Pclose);
  if (!type.valid() || !creation.valid() || H5Pget_layout(creation.get()) != H5D_CHUNKED) {
    return false;
  }
  hsize_t chunk_dims[2] = {0, 0};
  if (H5Pget_chunk(creation.get(), 2, chunk_dims) != 2 || chunk_dims[0] == 0 ||
      chunk_dims[1] == 0) {
    return false;
  }
  check_chunk_shape(chunk_dims, rows, columns, file, what);
  const auto pipeline = supported_pipeline(creation.get());
  if (!pipeline || H5Tequal(type.get(), H5T_IEEE_F64LE) <= 0 || !zero_fill(creation.get())) {
    return false;
  }
  const std::size_t chunk_rows = chunk_dims[0];
  const std::size_t chunk_columns = chunk_dims[1];
  const std::size_t chunk_elements = chunk_rows * chunk_columns;

  std::vector<std::pair<hsize_t, hsize_t>> origins;
  for (hsize_t row = 0; row < rows; row += chunk_rows) {
    for (hsize_t column = 0; column < columns; column += chunk_columns) {
      origins.emplace_back(row, column);
    }
  }
  const unsigned threads =
      std::clamp<unsigned>(std::thread::hardware_concurrency(), 1, 8);
  // Batches bound the raw bytes held at once; HDF5 reads serially, zlib runs in parallel.
  const std::size_t batch = 4 * threads;
  std::vector<RawChunk> chunks(batch);
  std::vector<unsigned char> corrupt(batch, 0);  // not vector<bool>: written concurrently
  // Per-thread buffers, allocated here so that worker threads never allocate (or throw).
  std::vector<std::vector<unsigned char>> scratch(threads);
  std::vector<std::vector<double>> decoded(threads);
  for (unsigned t = 0; t < threads; ++t) {
    scratch[t].resize(pipeline->shuffle ? chunk_elements * sizeof(double) : 0);
    decoded[t].resize(chunk_elements);
  }
  for (std::size_t first = 0; first < origins.size(); first += batch) {
    const std::size_t count = std::min(batch, origins.size() - first);
    for (std::size_t k = 0; k < count; ++k) {
      RawChunk& chunk = chunks[k];
      chunk.row = origins[first + k].first;
      chunk.column = origins[first + k].second;
      const hsize_t offset[2] = {chunk.row, chunk.column};
      hsize_t stored = 0;
      // An unallocated chunk reports size 0 (or fails): it holds the zero fill.
      if (H5Dget_chunk_storage_size(dataset, offset, &stored) < 0 || stored == 0) {
        chunk.bytes.clear();
        continue;
      }
      if (stored > file_size) {
        h5::fail(file, what + ": a chunk claims " + std::to_string(stored) +
                           " bytes, more than the whole file");
      }
      chunk.bytes.resize(stored);
      chunk.skipped_filters = 0;
      h5::check(H5Dread_chunk(dataset, H5P_DEFAULT, offset, &chunk.skipped_filters,
                              chunk.bytes.data()),
                file, what);
    }
    std::atomic<std::size_t> next{0};
    auto work = [&](unsigned thread) {
      std::vector<double>& values = decoded[thread];
      for (std::size_t k = next++; k < count; k = next++) {
        const RawChunk& chunk = chunks[k];
        const bool empty = chunk.bytes.empty();
        if (empty && sink == ChunkSink::kAdd) {
          continue;  // adding zeros
        }
        if (empty) {
          std::fill(values.begin(), values.end(), 0.0);
        } else if (!decode_chunk(*pipeline, chunk, chunk_elements, scratch[thread], values.data())) {
          corrupt[k] = 1;
          continue;
        }
        const std::size_t valid_rows = std::min<std::size_t>(chunk_rows, rows - chunk.row);
        const std::size_t valid_columns =
            std::min<std::size_t>(chunk_columns, columns - chunk.column);
        for (std::size_t r = 0; r < valid_rows; ++r) {
          double* target = out + (chunk.row + r) * columns + chunk.column;
          const double* source = values.data() + r * chunk_columns;
          if (sink == ChunkSink::kStore) {
            std::memcpy(target, source, valid_columns * sizeof(double));
          } else {
            for (std::size_t c = 0; c < valid_columns; ++c) {
              target[c] += source[c];
            }
          }
        }
      }
    };
    std::vector<std::thread> workers;
    for (unsigned t = 1; t < threads && t < count; ++t) {
      workers.emplace_back(work, t);
    }
    work(0);
    for (auto& worker : workers) {
      worker.join();
    }
    if (std::find(corrupt.begin(), corrupt.end(), 1) != corrupt.end()) {
      h5::fail(file, what + ": a compressed chunk is corrupt");
    }
  }
  return true;
}

}  // namespace orrery::report

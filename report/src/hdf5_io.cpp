// report.h5 per docs/design.md §5: root attributes, four compound tables, one 2-D
// float64 dataset per metric under /values. Reading here, writing in cube_writer.cpp.

#include "orrery/report/hdf5_io.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>

#include "chunk_reader.h"
#include "cube_file.h"
#include "global_heap_check.h"
#include "hdf5_handle.h"
#include "orrery/allocation_limit.h"
#include "hdf5_tables.h"
#include "orrery/report/validate.h"
#include "report_schema.h"

namespace orrery::report {
namespace {

using namespace cube_file;  // the constants and helpers shared with cube_writer.cpp

// ---- reading the header -------------------------------------------------------

void check_format(hid_t root, const std::string& file) {
  const auto format = h5::read_string_attribute(root, file, "format");
  if (!format || *format != kFormat) {
    h5::fail(file, "not an Orrery report (root attribute format is " +
                       (format ? "'" + *format + "'" : std::string("missing")) +
                       ", expected '" + kFormat + "')");
  }
  const auto version = h5::read_int_attribute(root, file, "format_version");
  if (!version || *version != kFormatVersion) {
    h5::fail(file, "unsupported report format_version " +
                       (version ? std::to_string(*version) : std::string("(missing)")) +
                       " (this Orrery reads version " + std::to_string(kFormatVersion) + ")");
  }
}

CubeAttributes read_attributes(hid_t root, const std::string& file) {
  CubeAttributes attributes;
  attributes.creator = h5::read_string_attribute(root, file, "creator").value_or("");
  attributes.experiment = h5::read_string_attribute(root, file, "experiment").value_or("");
  attributes.created = h5::read_string_attribute(root, file, "created").value_or("");
  return attributes;
}

std::vector<Metric> read_metrics(hid_t root, const std::string& file) {
  const h5::TableReader table(root, file, schema::metrics::kTable);
  const auto names = *table.strings(schema::metrics::kName);
  const auto display_names = *table.strings(schema::metrics::kDisplayName);
  const auto parents = table.ints(schema::metrics::kParent);
  const auto units = *table.strings(schema::metrics::kUnit);
  const auto descriptions = *table.strings(schema::metrics::kDescription);
  const auto diagnoses = table.strings(schema::metrics::kDiagnosis, false);
  std::vector<Metric> metrics(table.rows());
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    metrics[i] = Metric{names[i], display_names[i], parents[i], units[i], descriptions[i],
                        diagnoses ? (*diagnoses)[i] : std::string()};
  }
  return metrics;
}

std::vector<Region> read_regions(hid_t root, const std::string& file) {
  const h5::TableReader table(root, file, schema::regions::kTable);
  const auto names = *table.strings(schema::regions::kName);
  const auto files = *table.strings(schema::regions::kFile);
  const auto lines = table.ints(schema::regions::kLine);
  const auto paradigms = *table.strings(schema::regions::kParadigm);
  std::vector<Region> regions(table.rows());
  for (std::size_t i = 0; i < regions.size(); ++i) {
    regions[i] = Region{names[i], files[i], lines[i], paradigms[i]};
  }
  return regions;
}

std::vector<Callpath> read_callpaths(hid_t root, const std::string& file) {
  const h5::TableReader table(root, file, schema::callpaths::kTable);
  const auto parents = table.ints(schema::callpaths::kParent);
  const auto regions = table.ints(schema::callpaths::kRegion);
  std::vector<Callpath> callpaths(table.rows());
  for (std::size_t i = 0; i < callpaths.size(); ++i) {
    callpaths[i] = Callpath{parents[i], regions[i]};
  }
  return callpaths;
}

std::vector<Location> read_locations(hid_t root, const std::string& file) {
  const h5::TableReader table(root, file, schema::locations::kTable);
  const auto ranks = table.ints(schema::locations::kRank);
  const auto threads = table.ints(schema::locations::kThread);
  const auto nodes = *table.strings(schema::locations::kNode);
  const auto names = *table.strings(schema::locations::kName);
  std::vector<Location> locations(table.rows());
  for (std::size_t i = 0; i < locations.size(); ++i) {
    locations[i] = Location{ranks[i], threads[i], nodes[i], names[i]};
  }
  return locations;
}

/// Opens /values/<metric> and checks it is numeric with shape [callpaths][locations].
bool is_standard_number_type(hid_t type) {
  for (const hid_t standard :
       {H5T_IEEE_F64LE, H5T_IEEE_F64BE, H5T_IEEE_F32LE, H5T_IEEE_F32BE, H5T_STD_I64LE,
        H5T_STD_I64BE, H5T_STD_I32LE, H5T_STD_I32BE, H5T_STD_U64LE, H5T_STD_U64BE,
        H5T_STD_U32LE, H5T_STD_U32BE}) {
    if (H5Tequal(type, standard) > 0) {
      return true;
    }
  }
  return false;
}

h5::Handle open_values(hid_t root, const std::string& file, const std::string& metric,
                       const CubeHeader& header) {
  const std::string path = values_path(metric);
  if (H5Lexists(root, kValuesGroup, H5P_DEFAULT) <= 0 ||
      H5Lexists(root, path.c_str(), H5P_DEFAULT) <= 0) {
    h5::fail(file, "not a complete report: dataset /" + path + " is missing");
  }
  h5::Handle access = h5::checked_plist(H5Pcreate(H5P_DATASET_ACCESS), file, "cannot open /" + path);
  H5Pset_chunk_cache(access.get(), 521, kChunkCacheBytes, 0.75);
  h5::Handle dataset = h5::checked_dataset(H5Dopen2(root, path.c_str(), access.get()), file,
                                           "cannot open dataset /" + path);
  h5::Handle type = h5::checked_type(H5Dget_type(dataset.get()), file, "cannot read /" + path);
  const H5T_class_t type_class = H5Tget_class(type.get());
  if (type_class != H5T_FLOAT && type_class != H5T_INTEGER) {
    h5::fail(file, "dataset /" + path + " is not numeric");
  }
  // HDF5 1.10 converts from a corrupt float layout (e.g. a 52-bit mantissa at
  // bit 0 with the exponent at bit 50) by reading past its buffers: only the
  // standard number types are accepted (found by fuzzing).
  if (!is_standard_number_type(type.get())) {
    h5::fail(file, "dataset /" + path + " has a non-standard number type (corrupt?)");
  }
  h5::Handle space = h5::checked_space(H5Dget_space(dataset.get()), file, "cannot read /" + path);
  hsize_t dims[2] = {0, 0};
  if (H5Sget_simple_extent_ndims(space.get()) != 2 ||
      H5Sget_simple_extent_dims(space.get(), dims, nullptr) < 0 ||
      dims[0] != header.callpaths.size() || dims[1] != header.locations.size()) {
    h5::fail(file, "dataset /" + path + " does not have the shape [" +
                       std::to_string(header.callpaths.size()) + " call paths][" +
                       std::to_string(header.locations.size()) + " locations]");
  }
  h5::check_unchunked_storage(dataset.get(), file, dims[0] * dims[1] * H5Tget_size(type.get()),
                              "dataset /" + path);
  return dataset;
}

}  // namespace

// ---- CubeReader -----------------------------------------------------------------

struct CubeReader::Impl {
  std::string path;
  h5::Handle file;
  CubeHeader header;
  std::uintmax_t file_size = 0;
  mutable std::map<std::size_t, h5::Handle> datasets;  // opened on first use, cache kept

  hid_t dataset(std::size_t metric_row) const {
    if (metric_row >= header.metrics.size()) {
      h5::fail(path, "no metric row " + std::to_string(metric_row));
    }
    auto found = datasets.find(metric_row);
    if (found == datasets.end()) {
      found = datasets
                  .emplace(metric_row, open_values(file.get(), path,
                                                   header.metrics[metric_row].name, header))
                  .first;
    }
    return found->second.get();
  }
};

CubeReader::CubeReader(const std::string& path) : impl_(std::make_unique<Impl>()) {
  h5::silence_errors();
  impl_->path = path;
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    h5::fail(path, "no such file");
  }
  if (std::filesystem::is_directory(path, error)) {
    h5::fail(path, "is a directory, not a report file");
  }
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    h5::fail(path, "not an HDF5 file (or truncated)");
  }
  impl_->file_size = std::filesystem::file_size(path, error);
  check_global_heaps(path);
  // Everything the header holds is stored in the file, so reading it cannot
  // legitimately need much more memory than the file's size: a corrupt length
  // that asks HDF5 for more fails at once instead of exhausting the machine.
  const ScopedAllocationLimit header_limit(kHeaderReadBudget + 4 * impl_->file_size);
  impl_->file = h5::checked(H5Fopen(path.c_str(), H5F_ACC_RDONLY, file_access(path).get()),
                            H5Fclose, path,
                            "cannot open as HDF5 (corrupt or truncated?)");
  const hid_t root = impl_->file.get();
  check_format(root, path);
  CubeHeader& header = impl_->header;
  header.attributes = read_attributes(root, path);
  header.metrics = read_metrics(root, path);
  header.regions = read_regions(root, path);
  header.callpaths = read_callpaths(root, path);
  header.locations = read_locations(root, path);
  if (const auto problem = header_problem(header); !problem.empty()) {
    h5::fail(path, problem);
  }
  for (std::size_t row = 0; row < header.metrics.size(); ++row) {
    impl_->dataset(row);  // validates each dataset's presence and shape now, not mid-command
  }
}

CubeReader::~CubeReader() = default;
CubeReader::CubeReader(CubeReader&&) noexcept = default;
CubeReader& CubeReader::operator=(CubeReader&&) noexcept = default;

const CubeHeader& CubeReader::header() const { return impl_->header; }

std::size_t CubeReader::metric_row(std::string_view name) const {
  const auto& metrics = impl_->header.metrics;
  for (std::size_t row = 0; row < metrics.size(); ++row) {
    if (metrics[row].name == name) {
      return row;
    }
  }
  h5::fail(impl_->path, "no metric '" + std::string(name) + "' in this report");
}

MetricValues CubeReader::read_metric(std::size_t metric_row) const {
  h5::silence_errors();
  const hid_t dataset = impl_->dataset(metric_row);
  const std::size_t rows = impl_->header.callpaths.size();
  const std::size_t columns = impl_->header.locations.size();
  MetricValues values(rows * columns);
  if (values.empty()) {
    return values;
  }
  const std::string what = "cannot read /" +
                           values_path(impl_->header.metrics[metric_row].name) +
                           " (corrupt or truncated?)";
  if (!read_chunks_in_parallel(dataset, impl_->path, what, rows, columns, impl_->file_size,
                               ChunkSink::kStore, values.data())) {
    h5::check(H5Dread(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
              impl_->path, what);
  }
  return values;
}

void CubeReader::add_metric(std::size_t metric_row, MetricValues& sum) const {
  h5::silence_errors();
  const hid_t dataset = impl_->dataset(metric_row);
  const std::size_t rows = impl_->header.callpaths.size();
  const std::size_t columns = impl_->header.locations.size();
  if (sum.size() != rows * columns) {
    h5::fail(impl_->path, "add_metric: the sum has " + std::to_string(sum.size()) +
                              " elements, the metric " + std::to_string(rows * columns));
  }
  if (sum.empty()) {
    return;
  }
  const std::string what = "cannot read /" +
                           values_path(impl_->header.metrics[metric_row].name) +
                           " (corrupt or truncated?)";
  if (!read_chunks_in_parallel(dataset, impl_->path, what, rows, columns, impl_->file_size,
                               ChunkSink::kAdd, sum.data())) {
    const MetricValues values = read_metric(metric_row);
    for (std::size_t i = 0; i < sum.size(); ++i) {
      sum[i] += values[i];
    }
  }
}

std::vector<double> CubeReader::read_callpath(std::size_t metric_row,
                                              std::size_t callpath_row) const {
  return read_rows(metric_row, callpath_row, 1);
}

MetricValues CubeReader::read_rows(std::size_t metric_row, std::size_t first,
                                   std::size_t count) const {
  h5::silence_errors();
  const hid_t dataset = impl_->dataset(metric_row);
  const auto& header = impl_->header;
  if (count == 0 || first + count > header.callpaths.size()) {
    h5::fail(impl_->path, count == 1 ? "no call path row " + std::to_string(first)
                                     : "no call path rows " + std::to_string(first) + " + " +
                                           std::to_string(count));
  }
  MetricValues values(count * header.locations.size());
  if (values.empty()) {
    return values;
  }
  const std::string what = "cannot read /" + values_path(header.metrics[metric_row].name) +
                           " (corrupt or truncated?)";
  h5::Handle file_space = h5::checked_space(H5Dget_space(dataset), impl_->path, what);
  const hsize_t start[2] = {first, 0};
  const hsize_t block[2] = {count, header.locations.size()};
  h5::check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, block, nullptr),
            impl_->path, what);
  h5::Handle memory_space =
      h5::checked_space(H5Screate_simple(2, block, nullptr), impl_->path, what);
  h5::check(H5Dread(dataset, H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(), H5P_DEFAULT,
                    values.data()),
            impl_->path, what);
  return values;
}

void CubeReader::add_rows(std::size_t metric_row, std::size_t first, std::size_t count,
                          MetricValues& sum) const {
  if (first == 0 && count == impl_->header.callpaths.size()) {
    add_metric(metric_row, sum);  // whole: chunks inflated in parallel
    return;
  }
  const MetricValues values = read_rows(metric_row, first, count);
  if (sum.size() != values.size()) {
    h5::fail(impl_->path, "add_rows: the sum has " + std::to_string(sum.size()) +
                              " elements, the rows " + std::to_string(values.size()));
  }
  for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += values[i];
}

// ---- whole cubes ----------------------------------------------------------------

Cube read_cube(const std::string& path) {
  const CubeReader reader(path);
  Cube cube;
  cube.header = reader.header();
  for (std::size_t row = 0; row < cube.header.metrics.size(); ++row) {
    cube.values.push_back(reader.read_metric(row));
  }
  return cube;
}

}  // namespace orrery::report

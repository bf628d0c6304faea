// Writing report.h5 (orrery/report/hdf5_io.h): the header tables, then the
// values metric by metric or in blocks of locations (the large-cube layout).

#include <algorithm>
#include <map>

#include "cube_file.h"
#include "hdf5_handle.h"
#include "hdf5_tables.h"
#include "orrery/report/hdf5_io.h"
#include "orrery/report/validate.h"
#include "report_schema.h"

namespace orrery::report {
namespace {

using namespace cube_file;

// ---- writing ------------------------------------------------------------------

void write_tables(hid_t root, const std::string& file, const CubeHeader& header) {
  using h5::Column;
  std::vector<std::string> names, display_names, units, descriptions, diagnoses;
  std::vector<int32_t> parents;
  for (const Metric& m : header.metrics) {
    names.push_back(m.name);
    display_names.push_back(m.display_name);
    parents.push_back(m.parent);
    units.push_back(m.unit);
    descriptions.push_back(m.description);
    diagnoses.push_back(m.diagnosis);
  }
  h5::write_table(root, file, schema::metrics::kTable,
                  {Column{schema::metrics::kName, names}, Column{schema::metrics::kDisplayName, display_names},
                   Column{schema::metrics::kParent, parents}, Column{schema::metrics::kUnit, units},
                   Column{schema::metrics::kDescription, descriptions}, Column{schema::metrics::kDiagnosis, diagnoses}},
                  header.metrics.size());

  std::vector<std::string> region_names, files, paradigms;
  std::vector<int32_t> lines;
  for (const Region& r : header.regions) {
    region_names.push_back(r.name);
    files.push_back(r.file);
    lines.push_back(r.line);
    paradigms.push_back(r.paradigm);
  }
  h5::write_table(root, file, schema::regions::kTable,
                  {Column{schema::regions::kName, region_names}, Column{schema::regions::kFile, files}, Column{schema::regions::kLine, lines},
                   Column{schema::regions::kParadigm, paradigms}},
                  header.regions.size());

  std::vector<int32_t> callpath_parents, callpath_regions;
  for (const Callpath& c : header.callpaths) {
    callpath_parents.push_back(c.parent);
    callpath_regions.push_back(c.region);
  }
  h5::write_table(root, file, schema::callpaths::kTable,
                  {Column{schema::callpaths::kParent, callpath_parents}, Column{schema::callpaths::kRegion, callpath_regions}},
                  header.callpaths.size());

  std::vector<int32_t> ranks, threads;
  std::vector<std::string> nodes, location_names;
  for (const Location& l : header.locations) {
    ranks.push_back(l.rank);
    threads.push_back(l.thread);
    nodes.push_back(l.node);
    location_names.push_back(l.name);
  }
  h5::write_table(root, file, schema::locations::kTable,
                  {Column{schema::locations::kRank, ranks}, Column{schema::locations::kThread, threads}, Column{schema::locations::kNode, nodes},
                   Column{schema::locations::kName, location_names}},
                  header.locations.size());
}

/// Chunk rows of the large-cube layout: at most kLargeCubeChunkRows, about
/// kChunkElements per chunk.
hsize_t band_chunk_rows(hsize_t rows, hsize_t band_columns) {
  return std::clamp<hsize_t>(kChunkElements / band_columns, 1,
                             std::min<hsize_t>(rows, kLargeCubeChunkRows));
}

/// Creation properties of a values dataset: chunked + shuffled + deflated, zero fill.
h5::Handle values_creation(const std::string& file, hsize_t rows, hsize_t columns,
                           hsize_t band_columns) {
  h5::Handle creation = h5::checked_plist(H5Pcreate(H5P_DATASET_CREATE), file,
                                          "cannot create /values");
  const double zero = 0.0;
  h5::check(H5Pset_fill_value(creation.get(), H5T_NATIVE_DOUBLE, &zero), file,
            "cannot create /values");
  if (rows == 0 || columns == 0) {
    return creation;  // an empty dataset cannot be chunked; nothing to compress anyway
  }
  hsize_t chunk_columns = std::min<hsize_t>(columns, kMaxChunkColumns);
  hsize_t chunk_rows = std::clamp<hsize_t>(kChunkElements / chunk_columns, 1, rows);
  if (band_columns > 0) {
    chunk_columns = std::min<hsize_t>(columns, band_columns);
    chunk_rows = band_chunk_rows(rows, chunk_columns);
  }
  const hsize_t chunk[2] = {chunk_rows, chunk_columns};
  h5::check(H5Pset_chunk(creation.get(), 2, chunk), file, "cannot create /values");
  if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0) {
    H5Pset_shuffle(creation.get());
    H5Pset_deflate(creation.get(), 4);
  }
  return creation;
}

/// Dataset access of the large-cube layout: a chunk cache of two bands, so
/// that the chunks a block of locations leaves incomplete wait there for the
/// next block; complete chunks leave first (w0 = 1).
h5::Handle band_access(const std::string& file, hsize_t rows, hsize_t columns,
                       hsize_t band_columns) {
  h5::Handle access = h5::checked_plist(H5Pcreate(H5P_DATASET_ACCESS), file, "cannot create /values");
  if (band_columns == 0 || rows == 0 || columns == 0) return access;
  const hsize_t width = std::min<hsize_t>(columns, band_columns);
  const hsize_t chunk_rows = band_chunk_rows(rows, width);
  const hsize_t chunks_per_band = (rows + chunk_rows - 1) / chunk_rows;
  const hsize_t chunk_bytes = chunk_rows * width * sizeof(double);
  const hsize_t slots = 100 * (2 * chunks_per_band + 1) + 1;
  H5Pset_chunk_cache(access.get(), static_cast<std::size_t>(slots),
                     static_cast<std::size_t>((2 * chunks_per_band + 1) * chunk_bytes), 1.0);
  return access;
}

}  // namespace

CubeLayout large_cube_layout(std::size_t callpaths, std::size_t memory_values) {
  const std::size_t band = memory_values / 2 / std::max<std::size_t>(1, callpaths);
  return CubeLayout{std::clamp<std::size_t>(band, 1, kMaxChunkColumns)};
}

// ---- CubeWriter -----------------------------------------------------------------

struct CubeWriter::Impl {
  std::string path;
  CubeHeader header;
  h5::Handle file;
  std::vector<h5::Handle> datasets;  // one per metric row, created up front
};

CubeWriter::CubeWriter(const std::string& path, const CubeHeader& header, CubeLayout layout)
    : impl_(std::make_unique<Impl>()) {
  h5::silence_errors();
  impl_->path = path;
  impl_->header = header;
  if (const auto problem = header_problem(header); !problem.empty()) {
    h5::fail(path, "cannot write report: " + problem);
  }
  impl_->file = h5::checked(
      H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, file_access(path).get()), H5Fclose,
      path, "cannot create file");
  const hid_t root = impl_->file.get();
  h5::write_string_attribute(root, path, "format", kFormat);
  h5::write_int_attribute(root, path, "format_version", kFormatVersion);
  h5::write_string_attribute(root, path, "creator", header.attributes.creator);
  h5::write_string_attribute(root, path, "experiment", header.attributes.experiment);
  h5::write_string_attribute(
      root, path, "created",
      header.attributes.created.empty() ? now_iso8601() : header.attributes.created);
  write_tables(root, path, header);

  h5::Handle group = h5::checked(
      H5Gcreate2(root, kValuesGroup, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, path,
      "cannot create group /values");
  const hsize_t dims[2] = {header.callpaths.size(), header.locations.size()};
  h5::Handle space = h5::checked_space(H5Screate_simple(2, dims, nullptr), path,
                                       "cannot create /values");
  h5::Handle creation = values_creation(path, dims[0], dims[1], layout.band_columns);
  h5::Handle access = band_access(path, dims[0], dims[1], layout.band_columns);
  for (const Metric& metric : header.metrics) {
    impl_->datasets.push_back(h5::checked_dataset(
        H5Dcreate2(group.get(), metric.name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT,
                   creation.get(), access.get()),
        path, "cannot create dataset /" + values_path(metric.name)));
  }
}

CubeWriter::~CubeWriter() {
  try {
    close();
  } catch (const Error&) {
    // A destructor must not throw; callers who care call close() themselves.
  }
}

void CubeWriter::write_metric(std::size_t metric_row, const MetricValues& values) {
  h5::silence_errors();
  const auto& header = impl_->header;
  if (!impl_->file.valid()) {
    h5::fail(impl_->path, "report already closed");
  }
  if (metric_row >= header.metrics.size()) {
    h5::fail(impl_->path, "no metric row " + std::to_string(metric_row));
  }
  const std::string& name = header.metrics[metric_row].name;
  const std::size_t expected = header.callpaths.size() * header.locations.size();
  if (values.size() != expected) {
    h5::fail(impl_->path, "values of metric '" + name + "' have " +
                              std::to_string(values.size()) + " elements, expected " +
                              std::to_string(expected));
  }
  if (expected == 0) {
    return;
  }
  h5::check(H5Dwrite(impl_->datasets[metric_row].get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
                     H5P_DEFAULT, values.data()),
            impl_->path, "cannot write /" + values_path(name));
}

void CubeWriter::write_columns(std::size_t metric_row, std::size_t first, std::size_t count,
                               const double* values) {
  h5::silence_errors();
  const auto& header = impl_->header;
  if (!impl_->file.valid()) h5::fail(impl_->path, "report already closed");
  if (metric_row >= header.metrics.size() || !impl_->datasets[metric_row].valid()) {
    h5::fail(impl_->path, "no open metric row " + std::to_string(metric_row));
  }
  const std::string what = "cannot write /" + values_path(header.metrics[metric_row].name);
  if (first + count > header.locations.size()) {
    h5::fail(impl_->path, what + ": locations " + std::to_string(first) + " + " +
                              std::to_string(count) + " beyond " +
                              std::to_string(header.locations.size()));
  }
  if (count == 0 || header.callpaths.empty()) return;
  const hid_t dataset = impl_->datasets[metric_row].get();
  h5::Handle file_space = h5::checked_space(H5Dget_space(dataset), impl_->path, what);
  const hsize_t start[2] = {0, first};
  const hsize_t block[2] = {header.callpaths.size(), count};
  h5::check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, block, nullptr),
            impl_->path, what);
  h5::Handle memory_space =
      h5::checked_space(H5Screate_simple(2, block, nullptr), impl_->path, what);
  h5::check(H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(),
                     H5P_DEFAULT, values),
            impl_->path, what);
}

void CubeWriter::finish_metric(std::size_t metric_row) {
  if (!impl_->file.valid() || metric_row >= impl_->datasets.size() ||
      !impl_->datasets[metric_row].valid()) {
    return;
  }
  const herr_t flushed = H5Dflush(impl_->datasets[metric_row].get());
  impl_->datasets[metric_row].reset();
  h5::check(flushed, impl_->path,
            "cannot write /" + values_path(impl_->header.metrics[metric_row].name));
}

void CubeWriter::close() {
  if (!impl_ || !impl_->file.valid()) {
    return;
  }
  impl_->datasets.clear();
  const hid_t file = impl_->file.get();
  const herr_t flushed = H5Fflush(file, H5F_SCOPE_LOCAL);
  impl_->file.reset();
  h5::check(flushed, impl_->path, "cannot finish writing the report");
}

void write_cube(const std::string& path, const Cube& cube) {
  if (cube.values.size() > cube.header.metrics.size()) {
    throw InputError(path + ": cube has values for " + std::to_string(cube.values.size()) +
                     " metrics but only " + std::to_string(cube.header.metrics.size()) +
                     " metrics");
  }
  CubeWriter writer(path, cube.header);
  for (std::size_t row = 0; row < cube.values.size(); ++row) {
    writer.write_metric(row, cube.values[row]);
  }
  writer.close();
}

}  // namespace orrery::report

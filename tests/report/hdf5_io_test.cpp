// Round trips through report.h5 and the reader's answers to broken files.

#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "literal_cube.h"
#include "orrery/error.h"
#include "orrery/report/hdf5_io.h"

namespace orrery::report {
namespace {

using testing::literal_cube;
namespace fs = std::filesystem;

/// A fresh file path in a per-test temporary directory, removed afterwards.
class ReportFile : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("orrery-report-" + std::to_string(getpid()) + "-" + info->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

Cube sample_cube() {
  return literal_cube({.metrics = {{"time", ""}, {"mpi", "time"}, {"late_sender", "mpi"},
                                   {"visits", ""}},
                       .callpaths = {"main", "main/solve", "main/solve/MPI_Recv", "main/MPI_Send"},
                       .ranks = {0, 1, 2},
                       .values = {{"time", {{1, 2, 3}, {4, 5, 6}, {0, 0, 0}, {0, 0, 0}}},
                                  {"mpi", {{0, 0, 0}, {0, 0, 0}, {0.5, 0.25, 0.125}, {1, 1, 1}}},
                                  {"late_sender", {{0, 0, 0}, {0, 0, 0}, {0.1, 0, 0.2}, {0, 0, 0}}},
                                  {"visits", {{1, 1, 1}, {10, 10, 10}, {20, 20, 20}, {3, 3, 4}}}}});
}

void expect_same_header(const CubeHeader& a, const CubeHeader& b) {
  EXPECT_EQ(a.attributes.creator, b.attributes.creator);
  EXPECT_EQ(a.attributes.experiment, b.attributes.experiment);
  EXPECT_EQ(a.attributes.created, b.attributes.created);
  ASSERT_EQ(a.metrics.size(), b.metrics.size());
  for (std::size_t i = 0; i < a.metrics.size(); ++i) {
    EXPECT_EQ(a.metrics[i].name, b.metrics[i].name);
    EXPECT_EQ(a.metrics[i].display_name, b.metrics[i].display_name);
    EXPECT_EQ(a.metrics[i].parent, b.metrics[i].parent);
    EXPECT_EQ(a.metrics[i].unit, b.metrics[i].unit);
    EXPECT_EQ(a.metrics[i].description, b.metrics[i].description);
    EXPECT_EQ(a.metrics[i].diagnosis, b.metrics[i].diagnosis);
  }
  ASSERT_EQ(a.regions.size(), b.regions.size());
  for (std::size_t i = 0; i < a.regions.size(); ++i) {
    EXPECT_EQ(a.regions[i].name, b.regions[i].name);
    EXPECT_EQ(a.regions[i].file, b.regions[i].file);
    EXPECT_EQ(a.regions[i].line, b.regions[i].line);
    EXPECT_EQ(a.regions[i].paradigm, b.regions[i].paradigm);
  }
  ASSERT_EQ(a.callpaths.size(), b.callpaths.size());
  for (std::size_t i = 0; i < a.callpaths.size(); ++i) {
    EXPECT_EQ(a.callpaths[i].parent, b.callpaths[i].parent);
    EXPECT_EQ(a.callpaths[i].region, b.callpaths[i].region);
  }
  ASSERT_EQ(a.locations.size(), b.locations.size());
  for (std::size_t i = 0; i < a.locations.size(); ++i) {
    EXPECT_EQ(a.locations[i].rank, b.locations[i].rank);
    EXPECT_EQ(a.locations[i].thread, b.locations[i].thread);
    EXPECT_EQ(a.locations[i].node, b.locations[i].node);
    EXPECT_EQ(a.locations[i].name, b.locations[i].name);
  }
}

/// Expects `action` to throw InputError whose message contains each of `parts`.
template <typename Action>
void expect_input_error(Action action, const std::vector<std::string>& parts) {
  try {
    action();
    ADD_FAILURE() << "no InputError thrown";
  } catch (const InputError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    for (const auto& part : parts) {
      EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
    }
  }
}

TEST_F(ReportFile, RoundTripKeepsHeaderAndValues) {
  const Cube cube = sample_cube();
  write_cube(path("a.h5"), cube);
  const Cube back = read_cube(path("a.h5"));
  expect_same_header(cube.header, back.header);
  ASSERT_EQ(back.values.size(), cube.values.size());
  for (std::size_t m = 0; m < cube.values.size(); ++m) {
    EXPECT_EQ(back.values[m], cube.values[m]) << cube.header.metrics[m].name;
  }
}

TEST_F(ReportFile, UnicodeStringsSurvive) {
  Cube cube = sample_cube();
  cube.header.regions[1].name = "solve<double>::µ-step ∑";
  cube.header.locations[2].node = "nœud-2";
  write_cube(path("u.h5"), cube);
  const Cube back = read_cube(path("u.h5"));
  EXPECT_EQ(back.header.regions[1].name, cube.header.regions[1].name);
  EXPECT_EQ(back.header.locations[2].node, cube.header.locations[2].node);
}

TEST_F(ReportFile, ReaderReadsOneCallpathRow) {
  const Cube cube = sample_cube();
  write_cube(path("a.h5"), cube);
  const CubeReader reader(path("a.h5"));
  const std::size_t mpi = reader.metric_row("mpi");
  EXPECT_EQ(mpi, 1u);
  for (std::size_t c = 0; c < cube.header.callpaths.size(); ++c) {
    const auto row = reader.read_callpath(mpi, c);
    const std::vector<double> expected(cube.values[mpi].begin() + static_cast<long>(c * 3),
                                       cube.values[mpi].begin() + static_cast<long>(c * 3 + 3));
    EXPECT_EQ(row, expected) << "call path " << c;
  }
}

TEST_F(ReportFile, AddMetricSumsChunkedAndContiguousDatasets) {
  const Cube cube = sample_cube();
  write_cube(path("a.h5"), cube);
  // Replace /values/mpi by a contiguous, uncompressed dataset (what other writers may do).
  hid_t id = H5Fopen(path("a.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  H5Ldelete(id, "/values/mpi", H5P_DEFAULT);
  const hsize_t dims[2] = {4, 3};
  hid_t space = H5Screate_simple(2, dims, nullptr);
  hid_t dataset = H5Dcreate2(id, "/values/mpi", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT);
  H5Dwrite(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, cube.values[1].data());
  H5Dclose(dataset);
  H5Sclose(space);
  H5Fclose(id);

  const CubeReader reader(path("a.h5"));
  EXPECT_EQ(reader.read_metric(1), cube.values[1]);
  MetricValues sum = reader.read_metric(0);
  reader.add_metric(1, sum);  // contiguous: through H5Dread
  reader.add_metric(2, sum);  // chunked: through the parallel inflate
  for (std::size_t i = 0; i < sum.size(); ++i) {
    EXPECT_DOUBLE_EQ(sum[i], cube.values[0][i] + cube.values[1][i] + cube.values[2][i]) << i;
  }
  MetricValues wrong(5);
  expect_input_error([&] { reader.add_metric(0, wrong); }, {"add_metric"});
}

TEST_F(ReportFile, MetricsNeverWrittenAreZeros) {
  const Cube cube = sample_cube();
  {
    CubeWriter writer(path("partial.h5"), cube.header);
    writer.write_metric(2, cube.values[2]);
  }  // destructor closes
  const Cube back = read_cube(path("partial.h5"));
  EXPECT_EQ(back.values[2], cube.values[2]);
  for (std::size_t m : {0u, 1u, 3u}) {
    EXPECT_EQ(back.values[m], MetricValues(cube.values[m].size(), 0.0));
  }
}

TEST_F(ReportFile, EmptyCallTreeAndNoLocations) {
  Cube no_paths = literal_cube({.metrics = {{"time", ""}}, .callpaths = {}, .ranks = {0, 1}});
  write_cube(path("nopaths.h5"), no_paths);
  const Cube a = read_cube(path("nopaths.h5"));
  EXPECT_EQ(a.header.callpaths.size(), 0u);
  EXPECT_EQ(a.header.locations.size(), 2u);
  EXPECT_TRUE(a.values.at(0).empty());

  Cube no_locations = literal_cube({.metrics = {{"time", ""}}, .callpaths = {"main"}, .ranks = {}});
  write_cube(path("nolocs.h5"), no_locations);
  const CubeReader reader(path("nolocs.h5"));
  EXPECT_TRUE(reader.read_callpath(0, 0).empty());
  EXPECT_TRUE(reader.read_metric(0).empty());

  Cube nothing = literal_cube({});
  write_cube(path("nothing.h5"), nothing);
  EXPECT_TRUE(read_cube(path("nothing.h5")).header.metrics.empty());
}

TEST_F(ReportFile, LargeCubeIsChunkedAndCompressed) {
  // 2000 call paths x 300 locations of mostly zeros: compression must make the file
  // much smaller than the raw 4.8 MB per metric.
  Cube cube = literal_cube({.metrics = {{"time", ""}, {"visits", ""}}});
  for (int c = 0; c < 2000; ++c) {
    cube.header.regions.push_back({"f" + std::to_string(c), "", 0, "compiler"});
    cube.header.callpaths.push_back({c == 0 ? -1 : 0, c});
  }
  for (int r = 0; r < 300; ++r) {
    cube.header.locations.push_back({r, 0, "n", "rank"});
  }
  const std::size_t size = 2000 * 300;
  cube.values = {MetricValues(size, 0.0), MetricValues(size, 0.0)};
  for (std::size_t i = 0; i < size; i += 97) {
    cube.values[0][i] = static_cast<double>(i) * 1e-3;
  }
  write_cube(path("big.h5"), cube);
  EXPECT_LT(fs::file_size(path("big.h5")), size * sizeof(double) / 4);
  const CubeReader reader(path("big.h5"));
  EXPECT_EQ(reader.read_metric(0), cube.values[0]);
  MetricValues twice = reader.read_metric(0);
  reader.add_metric(0, twice);
  for (std::size_t i = 0; i < size; i += 97) {
    EXPECT_EQ(twice[i], 2 * cube.values[0][i]);
  }
  const auto row = reader.read_callpath(0, 1234);
  for (std::size_t l = 0; l < 300; ++l) {
    EXPECT_EQ(row[l], cube.values[0][1234 * 300 + l]);
  }
}

TEST_F(ReportFile, LargeCubeWrittenInBlocksOfLocations) {
  // The analyzer's large-cube merge: bands 20 locations wide (two bands = 80,000
  // values of 2000 call paths), written in blocks of 7 locations that do not
  // line up with them; the values read back are the ones written.
  Cube cube = literal_cube({.metrics = {{"time", ""}}});
  for (int c = 0; c < 2000; ++c) {
    cube.header.regions.push_back({"f" + std::to_string(c), "", 0, "compiler"});
    cube.header.callpaths.push_back({c == 0 ? -1 : 0, c});
  }
  for (int r = 0; r < 300; ++r) cube.header.locations.push_back({r, 0, "n", "rank"});
  const std::size_t callpaths = 2000, locations = 300;
  MetricValues values(callpaths * locations, 0.0);
  for (std::size_t i = 0; i < values.size(); i += 13) values[i] = static_cast<double>(i) * 1e-3;
  const CubeLayout layout = large_cube_layout(callpaths, 80000);
  EXPECT_EQ(layout.band_columns, 20u);
  {
    CubeWriter writer(path("blocks.h5"), cube.header, layout);
    for (std::size_t first = 0; first < locations; first += 7) {
      const std::size_t count = std::min<std::size_t>(7, locations - first);
      std::vector<double> block(callpaths * count);
      for (std::size_t c = 0; c < callpaths; ++c) {
        for (std::size_t l = 0; l < count; ++l) block[c * count + l] = values[c * locations + first + l];
      }
      writer.write_columns(0, first, count, block.data());
    }
    EXPECT_THROW(writer.write_columns(0, 299, 2, values.data()), InputError);
    writer.finish_metric(0);
    EXPECT_THROW(writer.write_columns(0, 0, 1, values.data()), InputError);
    writer.close();
  }
  const CubeReader reader(path("blocks.h5"));
  EXPECT_EQ(reader.read_metric(0), values);
  const auto row = reader.read_callpath(0, 1234);
  for (std::size_t l = 0; l < locations; ++l) EXPECT_EQ(row[l], values[1234 * locations + l]);
  // The chunks: 8 call paths x one band.
  const hid_t file = H5Fopen(path("blocks.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t dataset = H5Dopen2(file, "/values/time", H5P_DEFAULT);
  const hid_t creation = H5Dget_create_plist(dataset);
  hsize_t chunk[2] = {0, 0};
  EXPECT_EQ(H5Pget_chunk(creation, 2, chunk), 2);
  EXPECT_EQ(chunk[0], kLargeCubeChunkRows);
  EXPECT_EQ(chunk[1], 20u);
  H5Pclose(creation);
  H5Dclose(dataset);
  H5Fclose(file);
}

TEST_F(ReportFile, CorruptChunkIsAnInputError) {
  // A large metric (mostly chunk data on disk) with garbage written over its middle.
  Cube cube = literal_cube({.metrics = {{"time", ""}}});
  for (int c = 0; c < 1000; ++c) {
    cube.header.regions.push_back({"f" + std::to_string(c), "", 0, "compiler"});
    cube.header.callpaths.push_back({c == 0 ? -1 : 0, c});
  }
  for (int r = 0; r < 200; ++r) {
    cube.header.locations.push_back({r, 0, "n", "rank"});
  }
  cube.values = {MetricValues(1000 * 200)};
  for (std::size_t i = 0; i < cube.values[0].size(); ++i) {
    cube.values[0][i] = std::sin(static_cast<double>(i));  // incompressible: all chunks big
  }
  write_cube(path("big.h5"), cube);
  const auto size = fs::file_size(path("big.h5"));
  {
    std::fstream file(path("big.h5"), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(size / 2));
    const std::string garbage(4096, '\x5a');
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  const CubeReader reader(path("big.h5"));
  expect_input_error([&] { (void)reader.read_metric(0); }, {"big.h5", "/values/time"});
}

TEST_F(ReportFile, UnknownMetricNamesTheMetric) {
  write_cube(path("a.h5"), sample_cube());
  const CubeReader reader(path("a.h5"));
  expect_input_error([&] { (void)reader.metric_row("no_such_metric"); },
                     {"no_such_metric", "a.h5"});
}

TEST_F(ReportFile, MissingFile) {
  expect_input_error([&] { CubeReader reader(path("absent.h5")); }, {"absent.h5", "no such file"});
}

TEST_F(ReportFile, DirectoryIsNotAReport) {
  expect_input_error([&] { CubeReader reader(dir_.string()); }, {"directory"});
}

TEST_F(ReportFile, NotHdf5) {
  std::ofstream(path("text.h5")) << "this is not HDF5\n";
  expect_input_error([&] { CubeReader reader(path("text.h5")); }, {"text.h5", "not an HDF5 file"});
}

TEST_F(ReportFile, TruncatedFilesFailCleanly) {
  const Cube cube = sample_cube();
  write_cube(path("full.h5"), cube);
  const auto full = fs::file_size(path("full.h5"));
  // Cut at several points: each cut must either be refused or read back as an error.
  for (const double fraction : {0.05, 0.3, 0.6, 0.9, 0.99}) {
    const auto cut = static_cast<std::uintmax_t>(static_cast<double>(full) * fraction);
    const std::string name = path("cut" + std::to_string(cut) + ".h5");
    fs::copy_file(path("full.h5"), name);
    fs::resize_file(name, cut);
    expect_input_error([&] { (void)read_cube(name); }, {name});
  }
}

/// Writes a report, then rewrites one root attribute with raw HDF5.
void rewrite_attribute(const std::string& file, const char* name, hid_t type, const void* value) {
  hid_t id = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(id, 0);
  H5Adelete(id, name);
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t attribute = H5Acreate2(id, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(attribute, type, value);
  H5Aclose(attribute);
  H5Sclose(space);
  H5Fclose(id);
}

TEST_F(ReportFile, OtherFormatIsRefused) {
  write_cube(path("a.h5"), sample_cube());
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, 9);
  rewrite_attribute(path("a.h5"), "format", type, "otherfmt");
  H5Tclose(type);
  expect_input_error([&] { CubeReader reader(path("a.h5")); }, {"not an Orrery report", "otherfmt"});
}

TEST_F(ReportFile, OtherVersionIsRefused) {
  write_cube(path("a.h5"), sample_cube());
  const int version = 2;
  rewrite_attribute(path("a.h5"), "format_version", H5T_NATIVE_INT, &version);
  expect_input_error([&] { CubeReader reader(path("a.h5")); }, {"format_version 2"});
}

TEST_F(ReportFile, PlainHdf5FileIsNotAReport) {
  hid_t id = H5Fcreate(path("plain.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  H5Fclose(id);
  expect_input_error([&] { CubeReader reader(path("plain.h5")); },
                     {"not an Orrery report", "missing"});
}

TEST_F(ReportFile, MissingTableOrValuesOrWrongShapeIsRefused) {
  for (const char* victim : {"/callpaths", "/values/mpi"}) {
    write_cube(path("a.h5"), sample_cube());
    hid_t id = H5Fopen(path("a.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    H5Ldelete(id, victim, H5P_DEFAULT);
    H5Fclose(id);
    expect_input_error([&] { CubeReader reader(path("a.h5")); }, {victim, "missing"});
  }
  write_cube(path("b.h5"), sample_cube());
  hid_t id = H5Fopen(path("b.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  H5Ldelete(id, "/values/time", H5P_DEFAULT);
  const hsize_t dims[2] = {4, 2};
  hid_t space = H5Screate_simple(2, dims, nullptr);
  hid_t dataset = H5Dcreate2(id, "/values/time", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT);
  H5Dclose(dataset);
  H5Sclose(space);
  H5Fclose(id);
  expect_input_error([&] { CubeReader reader(path("b.h5")); }, {"/values/time", "shape"});
}

TEST_F(ReportFile, WriterRejectsBadHeadersAndSizes) {
  Cube cube = sample_cube();
  cube.header.callpaths[1].parent = 3;  // a parent after its child: not pre-order
  expect_input_error([&] { write_cube(path("bad.h5"), cube); }, {"call path 1", "parent"});
  cube = sample_cube();
  cube.header.metrics[1].name = "a/b";
  expect_input_error([&] { write_cube(path("bad.h5"), cube); }, {"invalid name"});
  cube = sample_cube();
  cube.values[0].pop_back();
  expect_input_error([&] { write_cube(path("bad.h5"), cube); }, {"'time'", "elements"});
  expect_input_error([&] { write_cube(path("no/such/dir/x.h5"), sample_cube()); },
                     {"cannot create"});
}

}  // namespace
}  // namespace orrery::report

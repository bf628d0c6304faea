// /groups and /group_values/time in report.h5 (orrery/report/groups.h).

#include <cmath>

#include "hdf5_handle.h"
#include "hdf5_tables.h"
#include "orrery/report/groups.h"
#include "report_schema.h"

namespace orrery::report {
namespace {

constexpr const char* kTable = schema::groups::kTable;
constexpr const char* kValuesGroup = schema::groups::kValuesGroup;
constexpr const char* kValues = schema::groups::kTimeValues;

}  // namespace

void write_function_groups(const std::string& path, const FunctionGroups& groups) {
  h5::silence_errors();
  h5::Handle file = h5::checked(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose, path,
                                "cannot open the report to add its function groups");
  std::vector<std::string> names;
  std::vector<int32_t> parents;
  std::vector<double> similarity;
  for (const FunctionGroup& group : groups.groups) {
    names.push_back(group.name);
    parents.push_back(group.parent);
    similarity.push_back(group.similarity);
  }
  h5::write_table(file.get(), path, kTable,
                  {{schema::groups::kName, names}, {schema::groups::kParent, parents}, {schema::groups::kSimilarity, similarity}},
                  groups.groups.size());
  h5::Handle folder = h5::checked(H5Gcreate2(file.get(), kValuesGroup, H5P_DEFAULT, H5P_DEFAULT,
                                             H5P_DEFAULT),
                                  H5Gclose, path, "cannot create /group_values");
  const hsize_t dims[2] = {groups.groups.size(), groups.locations};
  h5::Handle space = h5::checked_space(H5Screate_simple(2, dims, nullptr), path,
                                       "cannot create /group_values/time");
  h5::Handle dataset = h5::checked_dataset(
      H5Dcreate2(file.get(), kValues, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                 H5P_DEFAULT),
      path, "cannot create /group_values/time");
  if (!groups.time.empty()) {
    h5::check(H5Dwrite(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                       groups.time.data()),
              path, "cannot write /group_values/time");
  }
  h5::check(H5Fflush(file.get(), H5F_SCOPE_LOCAL), path, "cannot finish writing the groups");
}

std::optional<FunctionGroups> read_function_groups(const std::string& path, std::size_t locations) {
  h5::silence_errors();
  h5::Handle file = h5::checked(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, path,
                                "cannot open file");
  if (H5Lexists(file.get(), kTable, H5P_DEFAULT) <= 0) return std::nullopt;
  const h5::TableReader table(file.get(), path, kTable);
  const auto names = *table.strings(schema::groups::kName);
  const auto parents = table.ints(schema::groups::kParent);
  const auto similarity = table.doubles(schema::groups::kSimilarity);
  FunctionGroups groups;
  groups.locations = locations;
  for (std::size_t g = 0; g < table.rows(); ++g) {
    if (parents[g] < -1 || parents[g] >= static_cast<int32_t>(g) ||
        (parents[g] >= 0 && groups.groups[static_cast<std::size_t>(parents[g])].parent != -1)) {
      h5::fail(path, "/groups row " + std::to_string(g) + " has an invalid parent (corrupt?)");
    }
    if (!std::isfinite(similarity[g]) || similarity[g] < 0 || similarity[g] > 1) {
      h5::fail(path, "/groups row " + std::to_string(g) + " has a similarity outside 0-1 (corrupt?)");
    }
    groups.groups.push_back({names[g], parents[g], similarity[g]});
  }
  if (H5Lexists(file.get(), kValuesGroup, H5P_DEFAULT) <= 0 ||
      H5Lexists(file.get(), kValues, H5P_DEFAULT) <= 0) {
    h5::fail(path, "/groups without /group_values/time (corrupt?)");
  }
  h5::Handle dataset = h5::checked_dataset(H5Dopen2(file.get(), kValues, H5P_DEFAULT), path,
                                           "cannot open /group_values/time");
  h5::Handle type = h5::checked_type(H5Dget_type(dataset.get()), path,
                                     "cannot read /group_values/time");
  h5::Handle space = h5::checked_space(H5Dget_space(dataset.get()), path,
                                       "cannot read /group_values/time");
  hsize_t dims[2] = {0, 0};
  if (H5Tget_class(type.get()) != H5T_FLOAT || H5Tequal(type.get(), H5T_IEEE_F64LE) <= 0 ||
      H5Sget_simple_extent_ndims(space.get()) != 2 ||
      H5Sget_simple_extent_dims(space.get(), dims, nullptr) < 0 || dims[0] != table.rows() ||
      dims[1] != locations) {
    h5::fail(path, "/group_values/time is not float64 [" + std::to_string(table.rows()) +
                       " groups][" + std::to_string(locations) + " locations] (corrupt?)");
  }
  groups.time.assign(table.rows() * locations, 0.0);
  if (!groups.time.empty()) {
    // Written contiguous; anything else is not ours (and a corrupt chunk
    // index is where HDF5 itself is fragile).
    h5::Handle creation = h5::checked_plist(H5Dget_create_plist(dataset.get()), path,
                                            "cannot read /group_values/time");
    if (H5Pget_layout(creation.get()) == H5D_CHUNKED) {
      h5::fail(path, "/group_values/time is chunked, not as orrery writes it (corrupt?)");
    }
    h5::check_unchunked_storage(dataset.get(), path, dims[0] * dims[1] * sizeof(double),
                                "dataset /group_values/time");
    h5::check(H5Dread(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                      groups.time.data()),
              path, "cannot read /group_values/time");
  }
  return groups;
}

}  // namespace orrery::report

// `/efficiency` and the what-if attributes in report.h5 (efficiency.h).

#include "hdf5_handle.h"
#include "hdf5_tables.h"
#include "orrery/report/efficiency.h"
#include "report_schema.h"

namespace orrery::report {
namespace {

constexpr const char* kTable = schema::efficiency::kTable;
constexpr const char* kModel = "what_if";
constexpr const char* kRuntime = "predicted_runtime";

void write_double_attribute(hid_t object, const std::string& file, const std::string& name,
                            double value) {
  const std::string what = "cannot write attribute '" + name + "'";
  h5::Handle space = h5::checked(H5Screate(H5S_SCALAR), H5Sclose, file, what);
  h5::Handle attribute = h5::checked(H5Acreate2(object, name.c_str(), H5T_IEEE_F64LE, space.get(),
                                                H5P_DEFAULT, H5P_DEFAULT),
                                     H5Aclose, file, what);
  h5::check(H5Awrite(attribute.get(), H5T_NATIVE_DOUBLE, &value), file, what);
}

h5::Handle open_report(const std::string& path, unsigned mode) {
  h5::silence_errors();
  return h5::checked(H5Fopen(path.c_str(), mode, H5P_DEFAULT), H5Fclose, path,
                     "cannot open the report");
}

}  // namespace

void write_efficiency_record(const std::string& path, const std::vector<Efficiency>& rows,
                             const std::optional<Prediction>& prediction) {
  if (rows.empty() && !prediction) return;
  h5::Handle file = open_report(path, H5F_ACC_RDWR);
  if (!rows.empty()) {
    std::vector<std::string> names, descriptions;
    std::vector<double> values;
    for (const Efficiency& row : rows) {
      names.push_back(row.name);
      values.push_back(row.value);
      descriptions.push_back(row.description);
    }
    h5::write_table(file.get(), path, kTable,
                    {{schema::efficiency::kName, names}, {schema::efficiency::kValue, values}, {schema::efficiency::kDescription, descriptions}},
                    rows.size());
  }
  if (prediction) {
    h5::write_string_attribute(file.get(), path, kModel, prediction->what_if);
    write_double_attribute(file.get(), path, kRuntime, prediction->predicted_runtime);
  }
  h5::check(H5Fflush(file.get(), H5F_SCOPE_LOCAL), path, "cannot finish writing the efficiencies");
}

std::vector<Efficiency> read_efficiencies(const std::string& path) {
  h5::Handle file = open_report(path, H5F_ACC_RDONLY);
  if (H5Lexists(file.get(), kTable, H5P_DEFAULT) <= 0) return {};
  const h5::TableReader table(file.get(), path, kTable);
  const auto names = table.strings(schema::efficiency::kName);
  const auto values = table.doubles(schema::efficiency::kValue);
  const auto descriptions = table.strings(schema::efficiency::kDescription, false);
  std::vector<Efficiency> rows;
  for (std::size_t r = 0; r < table.rows(); ++r) {
    rows.push_back({(*names)[r], values[r], descriptions ? (*descriptions)[r] : std::string()});
  }
  return rows;
}

std::optional<Prediction> read_prediction(const std::string& path) {
  h5::Handle file = open_report(path, H5F_ACC_RDONLY);
  const std::optional<std::string> model = h5::read_string_attribute(file.get(), path, kModel);
  if (!model) return std::nullopt;
  Prediction prediction{*model, 0};
  if (H5Aexists(file.get(), kRuntime) > 0) {
    h5::Handle attribute = h5::checked(H5Aopen(file.get(), kRuntime, H5P_DEFAULT), H5Aclose, path,
                                       "cannot read attribute 'predicted_runtime'");
    h5::check(H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, &prediction.predicted_runtime), path,
              "cannot read attribute 'predicted_runtime'");
  }
  return prediction;
}

}  // namespace orrery::report

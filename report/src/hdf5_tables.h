#pragma once
// Column-wise access to the 1-D compound tables and string attributes of
// report.h5. Reading accepts fixed- and variable-length strings and any
// integer width (h5py and other writers differ); writing always produces
// variable-length UTF-8 strings, little-endian int32 and float64.

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "hdf5_handle.h"

namespace orrery::report::h5 {

/// One column of a table to be written: its member name and its values.
struct Column {
  std::string name;
  std::variant<std::vector<std::string>, std::vector<int32_t>, std::vector<double>> values;
};

/// Writes a 1-D compound dataset `name` under `parent` with these columns (all of equal length).
void write_table(hid_t parent, const std::string& file, const std::string& name,
                 const std::vector<Column>& columns, std::size_t rows);

/// An open 1-D compound table, read one column at a time.
class TableReader {
 public:
  /// Opens `name` under `parent`; throws if it is missing, not 1-D or not compound.
  TableReader(hid_t parent, const std::string& file, const std::string& name);

  [[nodiscard]] std::size_t rows() const { return rows_; }
  /// A string column; nullopt if the table has no such member and it is optional.
  [[nodiscard]] std::optional<std::vector<std::string>> strings(const std::string& column,
                                                                bool required = true) const;
  [[nodiscard]] std::vector<int32_t> ints(const std::string& column) const;
  /// A float64 column (integers are converted).
  [[nodiscard]] std::vector<double> doubles(const std::string& column) const;

 private:
  /// The file's type of a member, checked to be of class `expected`; invalid if absent.
  [[nodiscard]] Handle member_type(const std::string& column, H5T_class_t expected,
                                   bool required) const;
  std::string file_;
  std::string name_;
  Handle dataset_;
  Handle file_type_;
  Handle transfer_;  ///< type-conversion buffers sized to the table, not HDF5's 2 x 1 MiB
  std::size_t rows_ = 0;
};

void write_string_attribute(hid_t object, const std::string& file, const std::string& name,
                            const std::string& value);
void write_int_attribute(hid_t object, const std::string& file, const std::string& name,
                         int64_t value);
/// A string attribute of the root; nullopt if absent, throws if not a string.
std::optional<std::string> read_string_attribute(hid_t object, const std::string& file,
                                                 const std::string& name);
/// An integer attribute; nullopt if absent, throws if not an integer scalar.
std::optional<int64_t> read_int_attribute(hid_t object, const std::string& file,
                                          const std::string& name);

}  // namespace orrery::report::h5

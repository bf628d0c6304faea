#include "hdf5_tables.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

namespace orrery::report::h5 {
namespace {

// Each member occupies one 8-byte slot in memory: a `const char*`, an int32 or a double.
constexpr std::size_t kSlot = 8;
static_assert(sizeof(const char*) <= kSlot);

/// Removes the padding a fixed-length string carries (NULs, or spaces if space-padded).
std::string trim_fixed(const char* data, std::size_t size, H5T_str_t padding) {
  std::size_t length = strnlen(data, size);
  if (padding == H5T_STR_SPACEPAD) {
    while (length > 0 && data[length - 1] == ' ') {
      --length;
    }
  }
  return {data, length};
}

/// Reads strings stored with `type` (a string type) from a dataset or attribute;
/// `read_type` is the memory type `read` uses, needed again to free vlen strings.
template <typename ReadFn>
std::vector<std::string> read_strings(hid_t type, hid_t read_type, std::size_t count,
                                      const std::string& file, const std::string& what,
                                      ReadFn read, hid_t space) {
  std::vector<std::string> out;
  out.reserve(count);
  if (count == 0) {
    return out;
  }
  if (H5Tis_variable_str(type) > 0) {
    std::vector<char*> pointers(count, nullptr);
    check(read(pointers.data()), file, "cannot read " + what);
    for (char* text : pointers) {
      out.emplace_back(text != nullptr ? text : "");
    }
    H5Dvlen_reclaim(read_type, space, H5P_DEFAULT, pointers.data());
    return out;
  }
  const std::size_t size = H5Tget_size(type);
  const H5T_str_t padding = H5Tget_strpad(type);
  std::vector<char> buffer(count * size);
  check(read(buffer.data()), file, "cannot read " + what);
  for (std::size_t i = 0; i < count; ++i) {
    out.push_back(trim_fixed(buffer.data() + i * size, size, padding));
  }
  return out;
}

/// A compound memory type with a single member `column` of `member` type.
Handle single_member_type(const std::string& column, hid_t member, std::size_t size,
                          const std::string& file) {
  Handle type = checked_type(H5Tcreate(H5T_COMPOUND, size), file, "cannot create a type");
  check(H5Tinsert(type.get(), column.c_str(), 0, member), file, "cannot create a type");
  return type;
}

}  // namespace

void write_table(hid_t parent, const std::string& file, const std::string& name,
                 const std::vector<Column>& columns, std::size_t rows) {
  const std::string what = "cannot write table /" + name;
  const std::size_t row_size = columns.size() * kSlot;
  Handle string_type = utf8_string_type(file);
  Handle memory_type = checked_type(H5Tcreate(H5T_COMPOUND, row_size), file, what);
  std::vector<unsigned char> buffer(rows * row_size);
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const std::size_t offset = c * kSlot;
    const Column& column = columns[c];
    if (const auto* texts = std::get_if<std::vector<std::string>>(&column.values)) {
      check(H5Tinsert(memory_type.get(), column.name.c_str(), offset, string_type.get()), file,
            what);
      for (std::size_t r = 0; r < rows; ++r) {
        const char* text = (*texts)[r].c_str();
        std::memcpy(buffer.data() + r * row_size + offset, &text, sizeof text);
      }
    } else if (const auto* reals = std::get_if<std::vector<double>>(&column.values)) {
      check(H5Tinsert(memory_type.get(), column.name.c_str(), offset, H5T_NATIVE_DOUBLE), file,
            what);
      for (std::size_t r = 0; r < rows; ++r) {
        std::memcpy(buffer.data() + r * row_size + offset, &(*reals)[r], sizeof(double));
      }
    } else {
      const auto& numbers = std::get<std::vector<int32_t>>(column.values);
      check(H5Tinsert(memory_type.get(), column.name.c_str(), offset, H5T_NATIVE_INT32), file,
            what);
      for (std::size_t r = 0; r < rows; ++r) {
        std::memcpy(buffer.data() + r * row_size + offset, &numbers[r], sizeof(int32_t));
      }
    }
  }
  Handle file_type = checked_type(H5Tcopy(memory_type.get()), file, what);
  check(H5Tpack(file_type.get()), file, what);
  const hsize_t dims[1] = {rows};
  Handle space = checked_space(H5Screate_simple(1, dims, nullptr), file, what);
  Handle dataset = checked_dataset(H5Dcreate2(parent, name.c_str(), file_type.get(), space.get(),
                                              H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                                   file, what);
  if (rows > 0) {
    check(H5Dwrite(dataset.get(), memory_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT,
                   buffer.data()),
          file, what);
  }
}

namespace {

/// HDF5 1.10 converts a compound type by copying each member from the offset
/// its file type records: a corrupt offset or size copies past the row (found
/// by fuzzing). Every member must lie inside the row, and not overlap another.
void check_member_layout(hid_t compound, const std::string& file, const std::string& name) {
  const std::size_t row = H5Tget_size(compound);
  const int members = H5Tget_nmembers(compound);
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  for (int m = 0; m < members; ++m) {
    Handle member(H5Tget_member_type(compound, static_cast<unsigned>(m)), H5Tclose);
    const std::size_t offset = H5Tget_member_offset(compound, static_cast<unsigned>(m));
    const std::size_t size = member.valid() ? H5Tget_size(member.get()) : 0;
    if (size == 0 || offset > row || size > row - offset) {
      fail(file, "table /" + name + ": a column lies outside its row (corrupt datatype)");
    }
    spans.emplace_back(offset, offset + size);
  }
  std::sort(spans.begin(), spans.end());
  for (std::size_t i = 1; i < spans.size(); ++i) {
    if (spans[i].first < spans[i - 1].second) {
      fail(file, "table /" + name + ": two columns overlap (corrupt datatype)");
    }
  }
}

}  // namespace

TableReader::TableReader(hid_t parent, const std::string& file, const std::string& name)
    : file_(file), name_(name) {
  if (H5Lexists(parent, name.c_str(), H5P_DEFAULT) <= 0) {
    fail(file, "not an Orrery report: table /" + name + " is missing");
  }
  dataset_ = checked_dataset(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), file,
                             "cannot open table /" + name);
  file_type_ = checked_type(H5Dget_type(dataset_.get()), file, "cannot read table /" + name);
  if (H5Tget_class(file_type_.get()) != H5T_COMPOUND) {
    fail(file, "table /" + name + " is not a compound dataset");
  }
  check_member_layout(file_type_.get(), file, name);
  Handle space = checked_space(H5Dget_space(dataset_.get()), file, "cannot read table /" + name);
  if (H5Sget_simple_extent_ndims(space.get()) != 1) {
    fail(file, "table /" + name + " is not one-dimensional");
  }
  hsize_t dims[1] = {0};
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  rows_ = dims[0];
  // Every row stores at least one byte per column, so a row count beyond what
  // the dataset stores is a corrupt size, not a table to allocate for.
  const int members = H5Tget_nmembers(file_type_.get());
  const hsize_t stored = H5Dget_storage_size(dataset_.get());
  if (members <= 0 || (rows_ > 0 && rows_ > stored / static_cast<hsize_t>(members))) {
    fail(file, "table /" + name + " claims " + std::to_string(rows_) + " rows but stores " +
                   std::to_string(stored) + " bytes (corrupt)");
  }
  check_unchunked_storage(dataset_.get(), file, rows_ * H5Tget_size(file_type_.get()),
                          "table /" + name);
  // Reading a column converts the compound type; HDF5 would calloc a 1 MiB
  // conversion and a 1 MiB background buffer for every column of every table.
  constexpr hsize_t kMinBuffer = 4096;
  constexpr hsize_t kMaxBuffer = hsize_t{1} << 20;
  const hsize_t element = std::max<hsize_t>(H5Tget_size(file_type_.get()), sizeof(double));
  const hsize_t buffer = std::clamp(rows_ * element, kMinBuffer, kMaxBuffer);
  transfer_ = checked_plist(H5Pcreate(H5P_DATASET_XFER), file, "cannot read table /" + name);
  check(H5Pset_buffer(transfer_.get(), buffer, nullptr, nullptr), file,
        "cannot read table /" + name);
}

Handle TableReader::member_type(const std::string& column, H5T_class_t expected,
                                bool required) const {
  const int index = H5Tget_member_index(file_type_.get(), column.c_str());
  if (index < 0) {
    if (required) {
      fail(file_, "table /" + name_ + " has no column '" + column + "'");
    }
    return {};
  }
  Handle type = checked_type(H5Tget_member_type(file_type_.get(), static_cast<unsigned>(index)),
                             file_, "cannot read table /" + name_);
  if (H5Tget_class(type.get()) != expected) {
    fail(file_, "column '" + column + "' of table /" + name_ + " has the wrong type");
  }
  return type;
}

std::optional<std::vector<std::string>> TableReader::strings(const std::string& column,
                                                             bool required) const {
  Handle member = member_type(column, H5T_STRING, required);
  if (!member.valid()) {
    return std::nullopt;
  }
  const bool variable = H5Tis_variable_str(member.get()) > 0;
  const std::size_t size = variable ? sizeof(char*) : H5Tget_size(member.get());
  Handle memory = single_member_type(column, member.get(), size, file_);
  Handle space = checked_space(H5Dget_space(dataset_.get()), file_, "cannot read /" + name_);
  auto read = [&](void* buffer) {
    return H5Dread(dataset_.get(), memory.get(), H5S_ALL, H5S_ALL, transfer_.get(), buffer);
  };
  return read_strings(member.get(), memory.get(), rows_, file_,
                      "column '" + column + "' of /" + name_, read, space.get());
}

std::vector<int32_t> TableReader::ints(const std::string& column) const {
  Handle member = member_type(column, H5T_INTEGER, true);
  Handle memory = single_member_type(column, H5T_NATIVE_INT32, sizeof(int32_t), file_);
  std::vector<int32_t> out(rows_);
  if (rows_ > 0) {
    check(H5Dread(dataset_.get(), memory.get(), H5S_ALL, H5S_ALL, transfer_.get(), out.data()), file_,
          "cannot read column '" + column + "' of /" + name_);
  }
  return out;
}

std::vector<double> TableReader::doubles(const std::string& column) const {
  const int index = H5Tget_member_index(file_type_.get(), column.c_str());
  if (index < 0) fail(file_, "table /" + name_ + " has no column '" + column + "'");
  Handle member = checked_type(H5Tget_member_type(file_type_.get(), static_cast<unsigned>(index)),
                               file_, "cannot read table /" + name_);
  const H5T_class_t kind = H5Tget_class(member.get());
  if (kind != H5T_FLOAT && kind != H5T_INTEGER) {
    fail(file_, "column '" + column + "' of table /" + name_ + " has the wrong type");
  }
  Handle memory = single_member_type(column, H5T_NATIVE_DOUBLE, sizeof(double), file_);
  std::vector<double> out(rows_);
  if (rows_ > 0) {
    check(H5Dread(dataset_.get(), memory.get(), H5S_ALL, H5S_ALL, transfer_.get(), out.data()), file_,
          "cannot read column '" + column + "' of /" + name_);
  }
  return out;
}

void write_string_attribute(hid_t object, const std::string& file, const std::string& name,
                            const std::string& value) {
  const std::string what = "cannot write attribute '" + name + "'";
  Handle type = utf8_string_type(file);
  Handle space = checked_space(H5Screate(H5S_SCALAR), file, what);
  Handle attribute = checked(
      H5Acreate2(object, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
      H5Aclose, file, what);
  const char* text = value.c_str();
  check(H5Awrite(attribute.get(), type.get(), &text), file, what);
}

void write_int_attribute(hid_t object, const std::string& file, const std::string& name,
                         int64_t value) {
  const std::string what = "cannot write attribute '" + name + "'";
  Handle space = checked_space(H5Screate(H5S_SCALAR), file, what);
  Handle attribute = checked(H5Acreate2(object, name.c_str(), H5T_STD_I32LE, space.get(),
                                        H5P_DEFAULT, H5P_DEFAULT),
                             H5Aclose, file, what);
  check(H5Awrite(attribute.get(), H5T_NATIVE_INT64, &value), file, what);
}

namespace {
/// Opens an attribute and its type if present; a second element of class `expected` or throws.
std::optional<std::pair<Handle, Handle>> open_attribute(hid_t object, const std::string& file,
                                                        const std::string& name,
                                                        H5T_class_t expected) {
  if (H5Aexists(object, name.c_str()) <= 0) {
    return std::nullopt;
  }
  const std::string what = "cannot read attribute '" + name + "'";
  Handle attribute = checked(H5Aopen(object, name.c_str(), H5P_DEFAULT), H5Aclose, file, what);
  Handle type = checked_type(H5Aget_type(attribute.get()), file, what);
  Handle space = checked_space(H5Aget_space(attribute.get()), file, what);
  if (H5Tget_class(type.get()) != expected || H5Sget_simple_extent_npoints(space.get()) != 1) {
    fail(file, "attribute '" + name + "' has the wrong type");
  }
  return std::make_pair(std::move(attribute), std::move(type));
}
}  // namespace

std::optional<std::string> read_string_attribute(hid_t object, const std::string& file,
                                                 const std::string& name) {
  auto opened = open_attribute(object, file, name, H5T_STRING);
  if (!opened) {
    return std::nullopt;
  }
  const hid_t attribute = opened->first.get();
  const hid_t type = opened->second.get();
  Handle space = checked_space(H5Aget_space(attribute), file, "cannot read attribute " + name);
  auto read = [&](void* buffer) { return H5Aread(attribute, type, buffer); };
  return read_strings(type, type, 1, file, "attribute '" + name + "'", read, space.get()).front();
}

std::optional<int64_t> read_int_attribute(hid_t object, const std::string& file,
                                          const std::string& name) {
  auto opened = open_attribute(object, file, name, H5T_INTEGER);
  if (!opened) {
    return std::nullopt;
  }
  int64_t value = 0;
  check(H5Aread(opened->first.get(), H5T_NATIVE_INT64, &value), file,
        "cannot read attribute '" + name + "'");
  return value;
}

}  // namespace orrery::report::h5

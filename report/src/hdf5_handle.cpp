#include "hdf5_handle.h"

namespace orrery::report::h5 {

void silence_errors() {
  // Thread-safe HDF5 keeps this setting per thread, so it is set on every
  // entry point rather than once per process.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

void fail(const std::string& file, const std::string& what) {
  throw InputError(file + ": " + what);
}

Handle checked(hid_t id, Handle::Closer closer, const std::string& file, const std::string& what) {
  if (id < 0) {
    fail(file, what);
  }
  return Handle(id, closer);
}

void check(herr_t status, const std::string& file, const std::string& what) {
  if (status < 0) {
    fail(file, what);
  }
}

Handle utf8_string_type(const std::string& file) {
  Handle type = checked_type(H5Tcopy(H5T_C_S1), file, "cannot create a string type");
  check(H5Tset_size(type.get(), H5T_VARIABLE), file, "cannot create a string type");
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), file, "cannot create a string type");
  return type;
}

}  // namespace orrery::report::h5

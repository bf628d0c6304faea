#include "hdf5_handle.h"

#include <filesystem>
#include <string>

namespace orrery::report::h5 {

void silence_errors() {
  // Before HDF5's first use: no cleanup at exit. Every file is closed by its
  // Handle; after a failed close (a full disk) HDF5 1.10's exit-time cleanup
  // closes the half-closed file again and crashes (segfault in H5F__close_cb),
  // turning a clean "cannot write" into signal 11.
  static const bool no_atexit = [] {
    H5dont_atexit();
    return true;
  }();
  (void)no_atexit;
  // Thread-safe HDF5 keeps this setting per thread, so it is set on every
  // entry point rather than once per process.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

void fail(const std::string& file, const std::string& what) {
  throw InputError(file + ": " + what);
}

namespace {

/// HDF5's own account of the failure just reported (the innermost error on the
/// stack, e.g. "unable to lock file"), in one line; "" if there is none.
std::string hdf5_reason() {
  std::string reason;
  auto first = [](unsigned index, const H5E_error2_t* error, void* data) -> herr_t {
    if (index == 0 && error->desc != nullptr) {
      *static_cast<std::string*>(data) = error->desc;
    }
    return 0;
  };
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first, &reason);  // upward: innermost first
  H5Eclear2(H5E_DEFAULT);
  for (char& c : reason) {
    if (c == '\n' || c == '\r') {
      c = ' ';
    }
  }
  return reason;
}

[[noreturn]] void fail_with_reason(const std::string& file, const std::string& what) {
  const std::string reason = hdf5_reason();
  fail(file, reason.empty() ? what : what + " (HDF5: " + reason + ")");
}

}  // namespace

Handle checked(hid_t id, Handle::Closer closer, const std::string& file, const std::string& what) {
  if (id < 0) {
    fail_with_reason(file, what);
  }
  return Handle(id, closer);
}

void check(herr_t status, const std::string& file, const std::string& what) {
  if (status < 0) {
    fail_with_reason(file, what);
  }
}

void check_unchunked_storage(hid_t dataset, const std::string& file, hsize_t bytes,
                             const std::string& what) {
  Handle creation = checked_plist(H5Dget_create_plist(dataset), file, what);
  const H5D_layout_t layout = H5Pget_layout(creation.get());
  if (layout == H5D_CHUNKED) {
    return;
  }
  if (layout != H5D_COMPACT && layout != H5D_CONTIGUOUS) {
    fail(file, what + ": unsupported storage layout (corrupt?)");
  }
  const hsize_t stored = H5Dget_storage_size(dataset);
  const haddr_t offset = layout == H5D_CONTIGUOUS ? H5Dget_offset(dataset) : HADDR_UNDEF;
  if (layout == H5D_CONTIGUOUS && offset == HADDR_UNDEF) {
    return;  // never written: HDF5 answers with fill values
  }
  if (stored < bytes) {
    fail(file, what + ": stores " + std::to_string(stored) + " bytes where its shape needs " +
                   std::to_string(bytes) + " (corrupt)");
  }
  std::error_code error;
  const auto file_size = std::filesystem::file_size(file, error);
  if (layout == H5D_CONTIGUOUS && !error && (offset > file_size || bytes > file_size - offset)) {
    fail(file, what + ": its data lies beyond the end of the file (truncated?)");
  }
}

Handle utf8_string_type(const std::string& file) {
  Handle type = checked_type(H5Tcopy(H5T_C_S1), file, "cannot create a string type");
  check(H5Tset_size(type.get(), H5T_VARIABLE), file, "cannot create a string type");
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), file, "cannot create a string type");
  return type;
}

}  // namespace orrery::report::h5

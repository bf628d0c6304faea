#pragma once
// Small RAII helpers over the HDF5 C API, private to the report library.
// Every failing HDF5 call becomes an orrery::InputError naming the file and
// what was being done; HDF5's own error-stack printing is switched off so the
// user sees one line, never a stack dump.

#include <hdf5.h>

#include <string>
#include <utility>

#include "orrery/error.h"

namespace orrery::report::h5 {

/// Turns off HDF5's automatic error printing for the calling thread (idempotent).
void silence_errors();

/// Throws InputError("<file>: <what>") — the one way this library reports failure.
[[noreturn]] void fail(const std::string& file, const std::string& what);

/// Owns one HDF5 identifier and closes it with the matching H5?close.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~Handle() { reset(); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& other) noexcept
      : id_(std::exchange(other.id_, H5I_INVALID_HID)), closer_(other.closer_) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
      closer_ = other.closer_;
    }
    return *this;
  }

  [[nodiscard]] hid_t get() const { return id_; }
  [[nodiscard]] bool valid() const { return id_ >= 0; }
  void reset() {
    if (id_ >= 0 && closer_ != nullptr) {
      closer_(id_);
    }
    id_ = H5I_INVALID_HID;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

/// Wraps a freshly created id; a negative id throws with `what`.
Handle checked(hid_t id, Handle::Closer closer, const std::string& file, const std::string& what);
/// Throws with `what` if an HDF5 status is negative.
void check(herr_t status, const std::string& file, const std::string& what);

inline Handle checked_type(hid_t id, const std::string& file, const std::string& what) {
  return checked(id, H5Tclose, file, what);
}
inline Handle checked_space(hid_t id, const std::string& file, const std::string& what) {
  return checked(id, H5Sclose, file, what);
}
inline Handle checked_dataset(hid_t id, const std::string& file, const std::string& what) {
  return checked(id, H5Dclose, file, what);
}
inline Handle checked_plist(hid_t id, const std::string& file, const std::string& what) {
  return checked(id, H5Pclose, file, what);
}

/// Fails unless a compact or contiguous dataset really stores `bytes` bytes,
/// inside the file: HDF5 1.10 copies the size the dataspace implies out of
/// whatever the layout message says it stored (found by fuzzing). Chunked
/// datasets are checked chunk by chunk by their readers.
void check_unchunked_storage(hid_t dataset, const std::string& file, hsize_t bytes,
                             const std::string& what);

/// A variable-length UTF-8 string type (for attributes and table columns).
Handle utf8_string_type(const std::string& file);

}  // namespace orrery::report::h5

#pragma once
// Conversions the generated Fortran wrappers use. The Fortran wrappers pass the
// caller's arguments through untouched to the MPI library's own pmpi_xxx_ and
// only convert copies of the arguments the handlers need into C handles.

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace orrery::measure {

/// Number of MPI_Fint in a Fortran status.
inline constexpr std::size_t kFortranStatusSize =
    (sizeof(MPI_Status) + sizeof(MPI_Fint) - 1) / sizeof(MPI_Fint);

/// The MPI library's Fortran entry point `name` (e.g. "pmpi_send_"); aborts the
/// job with a message if it does not exist (a Fortran program always has it).
void* fortran_symbol(const char* name) noexcept;
/// MPI_IN_PLACE / MPI_BOTTOM for Fortran's sentinel addresses, else `buffer`.
const void* fortran_buffer(const void* buffer) noexcept;
bool fortran_status_ignore(const void* status) noexcept;
bool fortran_statuses_ignore(const void* statuses) noexcept;

/// C copies of a Fortran request array.
class FortranRequests {
 public:
  FortranRequests(MPI_Fint* fortran, int count);
  MPI_Request* data() noexcept { return after_.data(); }
  [[nodiscard]] const MPI_Request* before() const noexcept { return before_.data(); }
  void refresh();

 private:
  MPI_Fint* fortran_;
  std::vector<MPI_Request> before_, after_;
};

/// Fortran statuses (own storage when the caller passed MPI_STATUSES_IGNORE) and their C copies.
class FortranStatuses {
 public:
  FortranStatuses(void* fortran, int count);
  void* fortran() noexcept { return fortran_; }
  MPI_Status* data() noexcept { return c_.data(); }
  void convert();

 private:
  void* fortran_;
  std::vector<MPI_Fint> own_;
  std::vector<MPI_Status> c_;
};

/// 0-based copies of Fortran's 1-based indices.
class FortranIndices {
 public:
  FortranIndices(MPI_Fint* fortran, int count);
  int* data() noexcept { return c_.data(); }
  void convert(int outcount);

 private:
  MPI_Fint* fortran_;
  std::vector<int> c_;
};

/// C datatypes of a Fortran datatype array (one per peer of `comm`).
class FortranTypes {
 public:
  FortranTypes(const void* fortran, MPI_Comm comm, bool neighborhood);
  const MPI_Datatype* data() const noexcept { return c_.data(); }

 private:
  std::vector<MPI_Datatype> c_;
};

}  // namespace orrery::measure

#include "fortran_support.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "mpi_handlers.h"

#if defined(OPEN_MPI)
// Open MPI's Fortran sentinels (common-block addresses that mean MPI_IN_PLACE etc.).
extern "C" {
extern int mpi_fortran_in_place_;
extern int mpi_fortran_bottom_;
extern int mpi_fortran_status_ignore_;
extern int mpi_fortran_statuses_ignore_;
}
#endif

namespace orrery::measure {

void* fortran_symbol(const char* name) noexcept {
  void* symbol = dlsym(RTLD_NEXT, name);
  if (symbol == nullptr) symbol = dlsym(RTLD_DEFAULT, name);
  if (symbol == nullptr) {
    std::fprintf(stderr, "orrery: the MPI library has no Fortran entry point %s\n", name);
    std::abort();
  }
  return symbol;
}

const void* fortran_buffer(const void* buffer) noexcept {
#if defined(OPEN_MPI)
  if (buffer == &mpi_fortran_in_place_) return MPI_IN_PLACE;
  if (buffer == &mpi_fortran_bottom_) return MPI_BOTTOM;
#endif
  return buffer;
}

bool fortran_status_ignore(const void* status) noexcept {
#if defined(OPEN_MPI)
  return status == &mpi_fortran_status_ignore_;
#else
  (void)status;
  return false;
#endif
}

bool fortran_statuses_ignore(const void* statuses) noexcept {
#if defined(OPEN_MPI)
  return statuses == &mpi_fortran_statuses_ignore_;
#else
  (void)statuses;
  return false;
#endif
}

FortranRequests::FortranRequests(MPI_Fint* fortran, int count)
    : fortran_(fortran), before_(count > 0 ? static_cast<std::size_t>(count) : 0) {
  for (std::size_t i = 0; i < before_.size(); ++i) before_[i] = PMPI_Request_f2c(fortran_[i]);
  after_ = before_;
}

void FortranRequests::refresh() {
  for (std::size_t i = 0; i < after_.size(); ++i) after_[i] = PMPI_Request_f2c(fortran_[i]);
}

FortranStatuses::FortranStatuses(void* fortran, int count)
    : fortran_(fortran), c_(count > 0 ? static_cast<std::size_t>(count) : 0) {
  if (fortran_statuses_ignore(fortran)) {
    own_.resize(c_.size() * kFortranStatusSize + 1);
    fortran_ = own_.data();
  }
}

void FortranStatuses::convert() {
  auto* f = static_cast<MPI_Fint*>(fortran_);
  for (std::size_t i = 0; i < c_.size(); ++i) PMPI_Status_f2c(f + i * kFortranStatusSize, &c_[i]);
}

FortranIndices::FortranIndices(MPI_Fint* fortran, int count)
    : fortran_(fortran), c_(count > 0 ? static_cast<std::size_t>(count) : 0) {}

void FortranIndices::convert(int outcount) {
  for (int i = 0; i < outcount && static_cast<std::size_t>(i) < c_.size(); ++i) {
    c_[static_cast<std::size_t>(i)] = fortran_[i] - 1;
  }
}

FortranTypes::FortranTypes(const void* fortran, MPI_Comm comm, bool neighborhood) {
  const int n = peer_count(comm, neighborhood);
  const auto* f = static_cast<const MPI_Fint*>(fortran);
  c_.resize(static_cast<std::size_t>(n > 0 ? n : 0));
  for (std::size_t i = 0; i < c_.size(); ++i) c_[i] = PMPI_Type_f2c(f[i]);
}

}  // namespace orrery::measure

// The hand-written wrappers: MPI_Init, MPI_Init_thread, MPI_Finalize,
// MPI_Abort, MPI_Pcontrol, in C and Fortran.

#include <mpi.h>

#include "clock.h"
#include "export.h"
#include "fortran_support.h"
#include "measurement.h"
#include "mpi_function_ids.h"
#include "recorder.h"

namespace om = orrery::measure;

extern "C" ORRERY_EXPORT int MPI_Init(int* argc, char*** argv) {
  const uint64_t enter = om::now();
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) om::start_measurement(om::fn::MPI_Init, enter);
  return rc;
}

extern "C" ORRERY_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const uint64_t enter = om::now();
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) om::start_measurement(om::fn::MPI_Init_thread, enter);
  return rc;
}

extern "C" ORRERY_EXPORT int MPI_Finalize() {
  om::stop_measurement(om::fn::MPI_Finalize, om::now());
  return PMPI_Finalize();
}

extern "C" ORRERY_EXPORT int MPI_Abort(MPI_Comm comm, int error_code) {
  om::abort_measurement(error_code);
  return PMPI_Abort(comm, error_code);
}

extern "C" ORRERY_EXPORT int MPI_Pcontrol(const int level, ...) {
  om::Call call(om::fn::MPI_Pcontrol);
  return PMPI_Pcontrol(level);
}

// Fortran: the MPI library's mpi_init_ etc. call PMPI_* directly, so these
// start and stop the measurement themselves.
// (ompi_xxx_f: what Open MPI's mpi_f08 module calls.)
#define ORRERY_FORTRAN_ALIASES(impl, lower, upper, f08, ompi, params)       \
  extern "C" ORRERY_EXPORT void lower##_ params __attribute__((alias(#impl)));           \
  extern "C" ORRERY_EXPORT void lower##__ params __attribute__((alias(#impl)));          \
  extern "C" ORRERY_EXPORT void lower params __attribute__((alias(#impl)));              \
  extern "C" ORRERY_EXPORT void upper params __attribute__((alias(#impl)));              \
  extern "C" ORRERY_EXPORT void f08 params __attribute__((alias(#impl)));                \
  extern "C" ORRERY_EXPORT void ompi params __attribute__((alias(#impl)));

extern "C" ORRERY_EXPORT void orrery_fortran_mpi_init(MPI_Fint* ierr) {
  using Pmpi = void (*)(MPI_Fint*);
  static const auto pmpi = reinterpret_cast<Pmpi>(om::fortran_symbol("pmpi_init_"));
  const uint64_t enter = om::now();
  pmpi(ierr);
  if (*ierr == MPI_SUCCESS) om::start_measurement(om::fn::MPI_Init, enter);
}
ORRERY_FORTRAN_ALIASES(orrery_fortran_mpi_init, mpi_init, MPI_INIT, MPI_Init_f08, ompi_init_f, (MPI_Fint*))

extern "C" ORRERY_EXPORT void orrery_fortran_mpi_init_thread(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) {
  using Pmpi = void (*)(MPI_Fint*, MPI_Fint*, MPI_Fint*);
  static const auto pmpi = reinterpret_cast<Pmpi>(om::fortran_symbol("pmpi_init_thread_"));
  const uint64_t enter = om::now();
  pmpi(required, provided, ierr);
  if (*ierr == MPI_SUCCESS) om::start_measurement(om::fn::MPI_Init_thread, enter);
}
ORRERY_FORTRAN_ALIASES(orrery_fortran_mpi_init_thread, mpi_init_thread, MPI_INIT_THREAD, MPI_Init_thread_f08, ompi_init_thread_f,
                       (MPI_Fint*, MPI_Fint*, MPI_Fint*))

extern "C" ORRERY_EXPORT void orrery_fortran_mpi_finalize(MPI_Fint* ierr) {
  using Pmpi = void (*)(MPI_Fint*);
  static const auto pmpi = reinterpret_cast<Pmpi>(om::fortran_symbol("pmpi_finalize_"));
  om::stop_measurement(om::fn::MPI_Finalize, om::now());
  pmpi(ierr);
}
ORRERY_FORTRAN_ALIASES(orrery_fortran_mpi_finalize, mpi_finalize, MPI_FINALIZE, MPI_Finalize_f08, ompi_finalize_f, (MPI_Fint*))

extern "C" ORRERY_EXPORT void orrery_fortran_mpi_abort(MPI_Fint* comm, MPI_Fint* error_code, MPI_Fint* ierr) {
  using Pmpi = void (*)(MPI_Fint*, MPI_Fint*, MPI_Fint*);
  static const auto pmpi = reinterpret_cast<Pmpi>(om::fortran_symbol("pmpi_abort_"));
  om::abort_measurement(*error_code);
  pmpi(comm, error_code, ierr);
}
ORRERY_FORTRAN_ALIASES(orrery_fortran_mpi_abort, mpi_abort, MPI_ABORT, MPI_Abort_f08, ompi_abort_f, (MPI_Fint*, MPI_Fint*, MPI_Fint*))

extern "C" ORRERY_EXPORT void orrery_fortran_mpi_pcontrol(MPI_Fint* level) {
  using Pmpi = void (*)(MPI_Fint*);
  static const auto pmpi = reinterpret_cast<Pmpi>(om::fortran_symbol("pmpi_pcontrol_"));
  om::Call call(om::fn::MPI_Pcontrol);
  pmpi(level);
}
ORRERY_FORTRAN_ALIASES(orrery_fortran_mpi_pcontrol, mpi_pcontrol, MPI_PCONTROL, MPI_Pcontrol_f08, ompi_pcontrol_f, (MPI_Fint*))

#pragma once
// The library is built with hidden visibility (cheap access to its own state on
// the hot path); only the interposed MPI/Fortran entry points, the compiler
// hooks and the user region API are exported.
#define ORRERY_EXPORT __attribute__((visibility("default")))

/* Orrery's user region API (C and C++).
 *
 *   #include <orrery/orrery.h>
 *   ORRERY_REGION_BEGIN("solve");  ...  ORRERY_REGION_END("solve");
 *   { orrery::Region r("solve"); ... }            // C++: ends at scope exit
 *
 * The functions are weak references: a program built with this header runs
 * unchanged without liborrery-measure (the macros do nothing), and records
 * user regions when the library is linked or LD_PRELOADed and measuring
 * (between MPI_Init and MPI_Finalize, on the thread that called MPI_Init).
 * Region names are matched by content; ORRERY_FILTER rules apply to them.
 */
#ifndef ORRERY_ORRERY_H
#define ORRERY_ORRERY_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ORRERY_WEAK_REFERENCE __attribute__((weak))
#else
#define ORRERY_WEAK_REFERENCE
#endif

/** Enters the user region `name` (a NUL-terminated string). */
void orrery_region_begin(const char* name) ORRERY_WEAK_REFERENCE;
/** Leaves the user region `name`; must match the innermost open region. */
void orrery_region_end(const char* name) ORRERY_WEAK_REFERENCE;

#ifdef __cplusplus
}
#endif

#define ORRERY_REGION_BEGIN(name)                      \
  do {                                                 \
    if (orrery_region_begin) orrery_region_begin(name); \
  } while (0)
#define ORRERY_REGION_END(name)                    \
  do {                                             \
    if (orrery_region_end) orrery_region_end(name); \
  } while (0)

#ifdef __cplusplus
#if defined(__GNUC__)
#define ORRERY_NOT_INSTRUMENTED __attribute__((no_instrument_function))
#else
#define ORRERY_NOT_INSTRUMENTED
#endif
namespace orrery {
/// A user region that lasts for the lifetime of the object.
// Not instrumented itself (-finstrument-functions): the region it enters would
// otherwise outlive the compiler region of its constructor and break nesting.
class Region {
 public:
  ORRERY_NOT_INSTRUMENTED explicit Region(const char* name) : name_(name) { ORRERY_REGION_BEGIN(name_); }
  ORRERY_NOT_INSTRUMENTED ~Region() { ORRERY_REGION_END(name_); }
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;

 private:
  const char* name_;
};
}  // namespace orrery
#endif

#endif /* ORRERY_ORRERY_H */

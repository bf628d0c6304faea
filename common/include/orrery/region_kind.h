#pragma once
// What a region is, defined once for the writer (measure/, which maps these
// to OTF2's paradigms and region roles) and the reader (analyzer/, which maps
// OTF2's back; values it does not tell apart become kOther).

#include <cstdint>

namespace orrery {

/// The programming model a region belongs to (OTF2 paradigm).
enum class Paradigm : uint8_t { kMpi, kCompiler, kUser, kMeasurement, kOther, kOpenmp };
/// Number of Paradigm values.
inline constexpr int kParadigms = 6;

/// The paradigm's name as profiles and report.h5's `/regions` `paradigm`
/// column spell it (docs/design.md §5); models the report does not name
/// count as user code.
constexpr const char* paradigm_name(Paradigm paradigm) noexcept {
  switch (paradigm) {
    case Paradigm::kMpi: return "mpi";
    case Paradigm::kCompiler: return "compiler";
    case Paradigm::kMeasurement: return "measurement";
    case Paradigm::kOpenmp: return "openmp";
    case Paradigm::kUser:
    case Paradigm::kOther: break;
  }
  return "user";
}

/// What a region does (OTF2 region role).
enum class RegionRole : uint8_t {
  kFunction, kPointToPoint, kBarrier, kOneToAll, kAllToOne, kAllToAll,
  kCollectiveOther, kFileIo, kRma, kArtificial, kOther,
  // OpenMP constructs, as OTF2 names their roles (measure/lib/src/ompt_tool.cpp;
  // the analyzer tells only kParallel apart, see openmp_analysis.h).
  kParallel, kImplicitBarrier, kLoop, kSections, kSingle, kWorkshare, kCritical,
  kCriticalSblock, kTaskWait, kTaskGroup, kOrdered,
  kTask,        ///< an explicit task's execution on the thread that ran it
  kTaskCreate,  ///< the creation of an explicit task
};

}  // namespace orrery

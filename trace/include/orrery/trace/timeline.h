#pragma once
// A compact, per-rank view of an experiment's trace for display (the
// viewer's timeline): region instances and point-to-point message ends, in
// seconds from the trace's start. Reads OTF2 directly (the only reading-side
// code besides otf2_reader.cpp that does); needs neither MPI nor the
// analyzer's replay. Clock offsets are applied by OTF2 itself, which is good
// enough to draw, not to analyze.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace orrery::analyzer::timeline {

/// What a region is, for colouring.
enum class RegionKind : uint8_t {
  kCompute = 0,      ///< compiler, user and other regions (and the program root)
  kMpi = 1,          ///< paradigm MPI
  kMeasurement = 2,  ///< the measurement's own work (buffer flushes)
};

struct Region {
  std::string name;
  RegionKind kind = RegionKind::kCompute;
};

struct Rank {
  uint64_t location = 0;
  std::string name;
};

/// The global definitions the timeline needs, read once per experiment.
struct Definitions {
  std::string experiment;
  std::vector<Region> regions;
  std::vector<Rank> ranks;  ///< world rank order
  /// Communicator id -> its members' world ranks (empty for COMM_SELF).
  std::vector<std::vector<uint32_t>> comm_members;
  std::vector<bool> comm_is_self;
  uint64_t resolution = 1000000000;  ///< ticks per second
  uint64_t global_offset = 0;        ///< tick of the trace's start
  double duration = 0;               ///< seconds (trace length)
};

constexpr uint32_t kNoInstance = 0xFFFFFFFFu;

/// One execution of a region on one rank.
struct Instance {
  double begin = 0;
  double end = 0;
  uint32_t region = 0;
  uint32_t parent = kNoInstance;  ///< enclosing instance (index), kNoInstance for a root
  uint32_t depth = 0;
};

/// A message's end on one rank: a send (at the send call's enter) or a
/// receive (at the receive's completing call's exit, with its enter).
struct MessageEnd {
  double time = 0;        ///< send: enter of the send call; receive: exit of the completing call
  double call_enter = 0;  ///< enter of the call holding the event
  uint32_t comm = 0;
  uint32_t peer = 0;  ///< the other side's world rank
  uint32_t tag = 0;
  uint64_t bytes = 0;
  uint32_t instance = kNoInstance;  ///< the call instance (send: the posting call)
};

/// A stretch during which `instance` is the innermost open region: the
/// instances flattened into a sequence of non-overlapping pieces.
struct Segment {
  double begin = 0;
  double end = 0;
  uint32_t instance = 0;
};

/// The members of a resource sample, in the order of their values
/// (docs/trace-conventions.md, "Resource samples"): name and unit.
inline constexpr std::array<std::array<const char*, 2>, 6> kSampleMembers{{
    {"resident_set_size", "bytes"},
    {"cpu_time", "ns"},
    {"minor_page_faults", "#"},
    {"major_page_faults", "#"},
    {"voluntary_context_switches", "#"},
    {"involuntary_context_switches", "#"},
}};

/// One resource sample (`orrery run --sampling-interval`): the members'
/// values at `time`; all but the resident set size count from the process's start.
struct Sample {
  double time = 0;
  std::array<uint64_t, kSampleMembers.size()> values{};
};

/// One rank's trace, compact.
struct RankTimeline {
  uint32_t rank = 0;
  std::vector<Instance> instances;  ///< in order of their enter
  std::vector<Segment> segments;    ///< in time order, non-overlapping
  std::vector<MessageEnd> sends;    ///< in order of the send events
  std::vector<MessageEnd> receives; ///< in order of the receive events
  std::vector<Sample> samples;      ///< resource samples in time order (none unless sampled)

  /// Approximate heap bytes held.
  [[nodiscard]] std::size_t bytes() const;
};

/// True if `experiment` (a directory or an .otf2 anchor) has an OTF2 archive.
bool has_trace(const std::string& experiment);

/// Reads the global definitions. Throws orrery::InputError.
Definitions read_definitions(const std::string& experiment);

/// Reads one world rank's events. Throws orrery::InputError.
RankTimeline read_rank(const Definitions& definitions, uint32_t rank);

/// The exclusive (innermost-region) segments of a rank's instances; instances
/// must be in enter order, properly nested.
std::vector<Segment> flatten(const std::vector<Instance>& instances);

}  // namespace orrery::analyzer::timeline

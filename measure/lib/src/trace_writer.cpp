#include "trace_writer.h"

#include "thread_locations.h"

#include <otf2/otf2.h>
// OTF2's MPI collective callbacks call MPI_*; the measurement is stopped while
// writing, so those calls pass straight through the wrappers to PMPI.
#include <otf2/OTF2_MPI_Collectives.h>

#include <cstdarg>
#include <cstring>

#include <algorithm>
#include <map>
#include <unordered_map>

namespace orrery::measure {
namespace {

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
// No post-flush callback: OTF2's own flushes happen while writing at finalize,
// not during the run, so they get no BufferFlush record (ours are in the buffer).
OTF2_FlushCallbacks g_flush_callbacks = {pre_flush, nullptr};

/// OTF2 prints every failure (a full disk gives dozens of lines per rank);
/// the writer counts them instead (`otf2_errors` in measurement.json) and the
/// launcher reports the experiment incomplete in one line.
OTF2_ErrorCode count_quietly(void*, const char*, uint64_t, const char*, OTF2_ErrorCode code,
                             const char*, va_list) {
  return code;
}

/// Counts OTF2 errors in one place.
class Checked {
 public:
  void operator()(OTF2_ErrorCode code) noexcept {
    if (code != OTF2_SUCCESS) ++errors_;
  }
  [[nodiscard]] uint64_t errors() const noexcept { return errors_; }

 private:
  uint64_t errors_ = 0;
};

OTF2_Paradigm paradigm_of(Paradigm p) noexcept {
  switch (p) {
    case Paradigm::kMpi: return OTF2_PARADIGM_MPI;
    case Paradigm::kCompiler: return OTF2_PARADIGM_COMPILER;
    case Paradigm::kUser: return OTF2_PARADIGM_USER;
    case Paradigm::kMeasurement: return OTF2_PARADIGM_MEASUREMENT_SYSTEM;
    case Paradigm::kOpenmp: return OTF2_PARADIGM_OPENMP;
    case Paradigm::kOther: break;
  }
  return OTF2_PARADIGM_UNKNOWN;
}

OTF2_RegionRole role_of(RegionRole r) noexcept {
  switch (r) {
    case RegionRole::kFunction: return OTF2_REGION_ROLE_FUNCTION;
    case RegionRole::kPointToPoint: return OTF2_REGION_ROLE_POINT2POINT;
    case RegionRole::kBarrier: return OTF2_REGION_ROLE_BARRIER;
    case RegionRole::kOneToAll: return OTF2_REGION_ROLE_COLL_ONE2ALL;
    case RegionRole::kAllToOne: return OTF2_REGION_ROLE_COLL_ALL2ONE;
    case RegionRole::kAllToAll: return OTF2_REGION_ROLE_COLL_ALL2ALL;
    case RegionRole::kCollectiveOther: return OTF2_REGION_ROLE_COLL_OTHER;
    case RegionRole::kFileIo: return OTF2_REGION_ROLE_FILE_IO;
    case RegionRole::kRma: return OTF2_REGION_ROLE_RMA;
    case RegionRole::kArtificial: return OTF2_REGION_ROLE_ARTIFICIAL;
    case RegionRole::kOther: break;
    case RegionRole::kParallel: return OTF2_REGION_ROLE_PARALLEL;
    case RegionRole::kImplicitBarrier: return OTF2_REGION_ROLE_IMPLICIT_BARRIER;
    case RegionRole::kLoop: return OTF2_REGION_ROLE_LOOP;
    case RegionRole::kSections: return OTF2_REGION_ROLE_SECTIONS;
    case RegionRole::kSingle: return OTF2_REGION_ROLE_SINGLE;
    case RegionRole::kWorkshare: return OTF2_REGION_ROLE_WORKSHARE;
    case RegionRole::kCritical: return OTF2_REGION_ROLE_CRITICAL;
    case RegionRole::kCriticalSblock: return OTF2_REGION_ROLE_CRITICAL_SBLOCK;
    case RegionRole::kTaskWait: return OTF2_REGION_ROLE_TASK_WAIT;
    case RegionRole::kTaskGroup: return OTF2_REGION_ROLE_TASK_WAIT;
    case RegionRole::kOrdered: return OTF2_REGION_ROLE_ORDERED;
    case RegionRole::kTask: return OTF2_REGION_ROLE_TASK;
    case RegionRole::kTaskCreate: return OTF2_REGION_ROLE_TASK_CREATE;
  }
  return OTF2_REGION_ROLE_UNKNOWN;
}

// Resource samples: metric members 0..5 (in ResourceSample's order) and
// metric class 0 over them; fixed global ids, the same on every rank.
constexpr OTF2_MetricRef kResourceClass = 0;

struct MetricMemberDef {
  const char* name;
  const char* description;
  const char* unit;
  OTF2_MetricMode mode;
};
constexpr MetricMemberDef kResourceMembers[kResourceMetrics] = {
    {"resident_set_size", "resident set size of the process (/proc/self/statm)", "bytes",
     OTF2_METRIC_ABSOLUTE_POINT},
    {"cpu_time", "user + system CPU time of the process since it started (getrusage)", "ns",
     OTF2_METRIC_ACCUMULATED_START},
    {"minor_page_faults", "minor page faults of the process since it started (getrusage)", "#",
     OTF2_METRIC_ACCUMULATED_START},
    {"major_page_faults", "major page faults of the process since it started (getrusage)", "#",
     OTF2_METRIC_ACCUMULATED_START},
    {"voluntary_context_switches", "voluntary context switches of the process since it started (getrusage)", "#",
     OTF2_METRIC_ACCUMULATED_START},
    {"involuntary_context_switches", "involuntary context switches of the process since it started (getrusage)",
     "#", OTF2_METRIC_ACCUMULATED_START},
};

void write_metric(OTF2_EvtWriter* w, const Record& r, Checked& check) {
  static constexpr OTF2_Type kTypes[kResourceMetrics] = {OTF2_TYPE_UINT64, OTF2_TYPE_UINT64, OTF2_TYPE_UINT64,
                                                         OTF2_TYPE_UINT64, OTF2_TYPE_UINT64, OTF2_TYPE_UINT64};
  OTF2_MetricValue values[kResourceMetrics];
  for (unsigned i = 0; i < kResourceMetrics; ++i) values[i].unsigned_int = r.metrics[i];
  check(OTF2_EvtWriter_Metric(w, nullptr, r.time, kResourceClass, kResourceMetrics, kTypes, values));
}

uint32_t mapped(const std::vector<uint32_t>& map, uint32_t local) noexcept {
  return local < map.size() ? map[local] : 0;
}

/// The string ref of the program name in every archive Orrery writes.
constexpr OTF2_StringRef kProgramNameString = 0;

/// Global id of a recorded region id (OpenMP ids go through their local ids first).
uint32_t region_ref(uint32_t region, const TraceInput& in) noexcept {
  if (region >= kOmpRegionBase) {
    const uint32_t index = region - kOmpRegionBase;
    region = index < in.omp_regions.size() ? in.omp_regions[index] : 0;
  }
  return mapped(in.mapping->regions, region);
}

/// The attribute on an OpenMP implicit task's Enter naming its team (a
/// process-unique id of the parallel region instance, docs/openmp.md).
constexpr OTF2_AttributeRef kTeamAttribute = 0;
constexpr const char* kTeamAttributeName = "OpenMP team";

/// Enter of an implicit task with its team's id as attribute.
void write_team_enter(OTF2_EvtWriter* w, const Record& r, OTF2_RegionRef region, Checked& check) {
  OTF2_AttributeList* attributes = OTF2_AttributeList_New();
  if (attributes == nullptr) {
    check(OTF2_EvtWriter_Enter(w, nullptr, r.time, region));
    return;
  }
  OTF2_AttributeValue value;
  value.uint64 = r.request;
  check(OTF2_AttributeList_AddAttribute(attributes, kTeamAttribute, OTF2_TYPE_UINT64, value));
  check(OTF2_EvtWriter_Enter(w, attributes, r.time, region));
  OTF2_AttributeList_Delete(attributes);
}

void write_event(OTF2_EvtWriter* w, const Record& r, const TraceInput& in, Checked& check) {
  const IdMapping& map = *in.mapping;
  const uint32_t root_region = in.root_region;
  const uint32_t comm = mapped(map.comms, r.comm);
  switch (r.kind) {
    case RecordKind::kEnter:
      // The program's begin and end (as Score-P writes them) coincide with
      // the root region's instance.
      if (r.region == root_region) {
        check(OTF2_EvtWriter_ProgramBegin(w, nullptr, r.time, kProgramNameString, 0, nullptr));
      }
      check(OTF2_EvtWriter_Enter(w, nullptr, r.time, region_ref(r.region, in)));
      break;
    case RecordKind::kLeave:
      check(OTF2_EvtWriter_Leave(w, nullptr, r.time, region_ref(r.region, in)));
      // The exit status is not known yet: the process is still in MPI_Finalize.
      if (r.region == root_region) check(OTF2_EvtWriter_ProgramEnd(w, nullptr, r.time, OTF2_UNDEFINED_INT64));
      break;
    case RecordKind::kMpiSend: check(OTF2_EvtWriter_MpiSend(w, nullptr, r.time, r.peer, comm, r.tag, r.bytes)); break;
    case RecordKind::kMpiRecv: check(OTF2_EvtWriter_MpiRecv(w, nullptr, r.time, r.peer, comm, r.tag, r.bytes)); break;
    case RecordKind::kMpiIsend:
      check(OTF2_EvtWriter_MpiIsend(w, nullptr, r.time, r.peer, comm, r.tag, r.bytes, r.request));
      break;
    case RecordKind::kMpiIrecv:
      check(OTF2_EvtWriter_MpiIrecv(w, nullptr, r.time, r.peer, comm, r.tag, r.bytes, r.request));
      break;
    case RecordKind::kMpiIsendComplete: check(OTF2_EvtWriter_MpiIsendComplete(w, nullptr, r.time, r.request)); break;
    case RecordKind::kMpiIrecvRequest: check(OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, r.time, r.request)); break;
    case RecordKind::kMpiRequestTest: check(OTF2_EvtWriter_MpiRequestTest(w, nullptr, r.time, r.request)); break;
    case RecordKind::kMpiRequestCancelled:
      check(OTF2_EvtWriter_MpiRequestCancelled(w, nullptr, r.time, r.request));
      break;
    case RecordKind::kCollBegin: check(OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, r.time)); break;
    case RecordKind::kCollEnd:
      check(OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, r.time, r.op, comm, r.root, r.bytes, r.bytes_received));
      break;
    case RecordKind::kNbcRequest:
      check(OTF2_EvtWriter_NonBlockingCollectiveRequest(w, nullptr, r.time, r.request));
      break;
    case RecordKind::kNbcComplete:
      check(OTF2_EvtWriter_NonBlockingCollectiveComplete(w, nullptr, r.time, r.op, comm, r.root, r.bytes,
                                                           r.bytes_received, r.request));
      break;
    case RecordKind::kBufferFlush: check(OTF2_EvtWriter_BufferFlush(w, nullptr, r.time, r.stop_time)); break;
    case RecordKind::kMetric: write_metric(w, r, check); break;
    case RecordKind::kThreadFork: check(OTF2_EvtWriter_ThreadFork(w, nullptr, r.time, OTF2_PARADIGM_OPENMP, r.peer)); break;
    case RecordKind::kThreadJoin: check(OTF2_EvtWriter_ThreadJoin(w, nullptr, r.time, OTF2_PARADIGM_OPENMP)); break;
    case RecordKind::kEnterTeam: write_team_enter(w, r, region_ref(r.region, in), check); break;
  }
}

/// Global string definitions, written on first use.
class Strings {
 public:
  Strings(OTF2_GlobalDefWriter* writer, Checked& check) : writer_(writer), check_(check) {}
  OTF2_StringRef operator()(const std::string& s) {
    auto [it, added] = ids_.emplace(s, static_cast<OTF2_StringRef>(ids_.size()));
    if (added) check_(OTF2_GlobalDefWriter_WriteString(writer_, it->second, s.c_str()));
    return it->second;
  }

 private:
  OTF2_GlobalDefWriter* writer_;
  Checked& check_;
  std::unordered_map<std::string, OTF2_StringRef> ids_;
};

void write_global_definitions(OTF2_GlobalDefWriter* w, const TraceInput& in,
                              const std::vector<uint64_t>& events,
                              const std::vector<std::vector<uint8_t>>& threads_of_ranks, uint64_t first, uint64_t last,
                              bool metrics, Checked& check) {
  Strings str(w, check);
  if (str(in.program.empty() ? std::string("program") : in.program) != kProgramNameString) {
    check(OTF2_ERROR_INVALID_ARGUMENT);  // the ProgramBegin events refer to string 0
  }
  const GlobalDefinitions& g = *in.global;
  const uint64_t realtime = in.realtime_anchor + (first - std::min(first, in.monotonic_anchor));
  check(OTF2_GlobalDefWriter_WriteClockProperties(w, 1000000000ULL, first, last - first, realtime));
  // System tree: machine -> one node per host.
  check(OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, str("machine"), str("machine"), OTF2_UNDEFINED_SYSTEM_TREE_NODE));
  std::unordered_map<std::string, OTF2_SystemTreeNodeRef> nodes;
  for (const std::string& host : g.hosts) {
    auto [it, added] = nodes.emplace(host, static_cast<OTF2_SystemTreeNodeRef>(nodes.size() + 1));
    if (added) check(OTF2_GlobalDefWriter_WriteSystemTreeNode(w, it->second, str(host), str("node"), 0));
  }
  const bool local = in.comm == MPI_COMM_NULL;  // a one-location archive
  for (std::size_t r = 0; r < g.hosts.size(); ++r) {
    if (local && r != static_cast<std::size_t>(in.location)) continue;
    const std::string name = "MPI Rank " + std::to_string(r);
    check(OTF2_GlobalDefWriter_WriteLocationGroup(w, r, str(name), OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                  nodes[g.hosts[r]], OTF2_UNDEFINED_LOCATION_GROUP));
  }
  for (std::size_t r = 0; r < g.hosts.size(); ++r) {
    if (local && r != static_cast<std::size_t>(in.location)) continue;
    check(OTF2_GlobalDefWriter_WriteLocation(w, r, str("Master thread"), OTF2_LOCATION_TYPE_CPU_THREAD,
                                             r < events.size() ? events[r] : 0, r));
  }
  // The ranks' other threads: (thread, events) pairs per rank, in rank order
  // (one blob in a one-location archive).
  for (std::size_t k = 0; k < threads_of_ranks.size(); ++k) {
    const std::size_t r = local ? static_cast<std::size_t>(in.location) : k;
    const std::vector<uint8_t>& blob = threads_of_ranks[k];
    for (std::size_t at = 0; at + 2 * sizeof(uint64_t) <= blob.size(); at += 2 * sizeof(uint64_t)) {
      uint64_t pair[2];
      std::memcpy(pair, blob.data() + at, sizeof pair);
      const auto thread = static_cast<uint32_t>(pair[0]);
      check(OTF2_GlobalDefWriter_WriteLocation(w, thread_location(static_cast<int>(r), thread),
                                               str("OMP thread " + std::to_string(thread)),
                                               OTF2_LOCATION_TYPE_CPU_THREAD, pair[1], r));
    }
  }
  for (std::size_t i = 0; i < g.regions.size(); ++i) {
    const RegionDef& region = g.regions[i];
    const OTF2_StringRef name = str(region.name);
    check(OTF2_GlobalDefWriter_WriteRegion(w, static_cast<OTF2_RegionRef>(i), name, name, str(""),
                                           role_of(region.role), paradigm_of(region.paradigm),
                                           OTF2_REGION_FLAG_NONE,
                                           region.file.empty() ? OTF2_UNDEFINED_STRING : str(region.file),
                                           region.line, region.line));
  }
  // The team attribute, where any rank recorded an OpenMP construct.
  if (std::any_of(g.regions.begin(), g.regions.end(), [](const RegionDef& r) { return r.paradigm == Paradigm::kOpenmp; })) {
    check(OTF2_GlobalDefWriter_WriteAttribute(w, kTeamAttribute, str(kTeamAttributeName),
                                              str("process-unique id of the OpenMP parallel region instance (team) "
                                                  "whose implicit task this is"),
                                              OTF2_TYPE_UINT64));
  }
  // Groups: 0 = all locations; then one COMM_GROUP per distinct member list, and COMM_SELF.
  std::vector<uint64_t> locations(g.hosts.size());
  for (std::size_t r = 0; r < locations.size(); ++r) locations[r] = r;
  check(OTF2_GlobalDefWriter_WriteGroup(w, 0, str("MPI_COMM_WORLD locations"), OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                        static_cast<uint32_t>(locations.size()), locations.data()));
  std::map<std::vector<int>, OTF2_GroupRef> groups;
  OTF2_GroupRef self_group = OTF2_UNDEFINED_GROUP;
  OTF2_GroupRef next_group = 1;
  for (std::size_t i = 0; i < g.comms.size(); ++i) {
    const CommDef& comm = g.comms[i];
    OTF2_GroupRef group = 0;
    if (comm.kind == CommDef::Kind::kSelf) {
      if (self_group == OTF2_UNDEFINED_GROUP) {
        self_group = next_group++;
        check(OTF2_GlobalDefWriter_WriteGroup(w, self_group, str("MPI_COMM_SELF"), OTF2_GROUP_TYPE_COMM_SELF,
                                              OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, nullptr));
      }
      group = self_group;
    } else {
      auto [it, added] = groups.emplace(comm.members, next_group);
      if (added) {
        ++next_group;
        std::vector<uint64_t> members(comm.members.begin(), comm.members.end());
        check(OTF2_GlobalDefWriter_WriteGroup(w, it->second, str("group " + std::to_string(it->second)),
                                              OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                              static_cast<uint32_t>(members.size()), members.data()));
      }
      group = it->second;
    }
    check(OTF2_GlobalDefWriter_WriteComm(w, static_cast<OTF2_CommRef>(i), str(comm.name), group,
                                         comm.parent == UINT32_MAX ? OTF2_UNDEFINED_COMM : comm.parent,
                                         OTF2_COMM_FLAG_NONE));
  }
  if (!metrics) return;
  OTF2_MetricMemberRef members[kResourceMetrics];
  for (unsigned i = 0; i < kResourceMetrics; ++i) {
    const MetricMemberDef& m = kResourceMembers[i];
    members[i] = i;
    check(OTF2_GlobalDefWriter_WriteMetricMember(w, i, str(m.name), str(m.description), OTF2_METRIC_TYPE_RUSAGE,
                                                 m.mode, OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, str(m.unit)));
  }
  check(OTF2_GlobalDefWriter_WriteMetricClass(w, kResourceClass, kResourceMetrics, members,
                                              OTF2_METRIC_ASYNCHRONOUS, OTF2_RECORDER_KIND_CPU));
}

}  // namespace

bool write_trace(const TraceInput& in, TraceOutput& out) noexcept {
  Checked check;
  const bool local = in.comm == MPI_COMM_NULL;
  int rank = in.location;
  int size = 1;
  if (!local) {
    PMPI_Comm_rank(in.comm, &rank);
    PMPI_Comm_size(in.comm, &size);
  }
  OTF2_Error_RegisterCallback(count_quietly, nullptr);
  OTF2_Archive* archive = OTF2_Archive_Open(in.directory.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                                            4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  // The rest is collective: either every rank writes or none does (no hang).
  int opened = archive != nullptr ? 1 : 0;
  int all_opened = opened;
  if (!local) PMPI_Allreduce(&opened, &all_opened, 1, MPI_INT, MPI_MIN, in.comm);
  if (all_opened == 0) {
    if (archive != nullptr) OTF2_Archive_Close(archive);
    return false;
  }
  check(OTF2_Archive_SetFlushCallbacks(archive, &g_flush_callbacks, nullptr));
  if (local) {
    check(OTF2_Archive_SetSerialCollectiveCallbacks(archive));
  } else {
    check(OTF2_MPI_Archive_SetCollectiveCallbacks(archive, in.comm, MPI_COMM_NULL));
  }
  check(OTF2_Archive_SetCreator(archive, "Orrery liborrery-measure"));
  check(OTF2_Archive_OpenEvtFiles(archive));
  uint64_t first = UINT64_MAX;
  uint64_t last = 0;
  // One location's events; false if its buffer could not be read back.
  const auto write_location = [&](OTF2_LocationRef location, const EventBuffer& buffer, uint64_t& events) {
    events = 0;
    OTF2_EvtWriter* evt = OTF2_Archive_GetEvtWriter(archive, location);
    if (evt == nullptr) return false;
    bool ok = false;
    uint64_t previous = 0;
    try {
      ok = buffer.for_each([&](const Record& raw) {
        Record r = raw;
        r.time = in.clock.to_ns(raw.time);
        if (r.kind == RecordKind::kBufferFlush) r.stop_time = in.clock.to_ns(raw.stop_time);
        first = std::min(first, r.time);
        if (r.time < previous) {
          // OTF2 refuses a time going backwards; keep the event at the last time.
          r.time = previous;
          ++out.clamped_timestamps;
        }
        previous = r.time;
        last = std::max(last, r.time);
        if (r.kind == RecordKind::kMetric) ++out.samples;
        write_event(evt, r, in, check);
      });
    } catch (...) {
      ok = false;
    }
    check(OTF2_EvtWriter_GetNumberOfEvents(evt, &events));
    check(OTF2_Archive_CloseEvtWriter(archive, evt));
    return ok;
  };
  bool read_ok = write_location(static_cast<OTF2_LocationRef>(rank), *in.buffer, out.events);
  // The other threads: (thread, events) pairs for rank 0's location definitions.
  std::vector<uint64_t> thread_counts;
  for (const ThreadTrace& thread : in.threads) {
    uint64_t events = 0;
    read_ok = write_location(thread_location(rank, thread.thread), *thread.buffer, events) && read_ok;
    thread_counts.push_back(thread.thread);
    thread_counts.push_back(events);
    out.thread_events += events;
  }
  check(OTF2_Archive_CloseEvtFiles(archive));

  // Rank 0 needs everyone's event count, time range and whether it wrote
  // resource samples for the global definitions.
  constexpr int kShared = 4;
  uint64_t mine[kShared] = {out.events, first, last, out.samples};
  std::vector<uint64_t> all(static_cast<std::size_t>(kShared * size));
  if (local) {
    std::copy(mine, mine + kShared, all.begin());
  } else {
    PMPI_Gather(mine, kShared, MPI_UINT64_T, all.data(), kShared, MPI_UINT64_T, 0, in.comm);
  }

  std::vector<std::vector<uint8_t>> threads_of_ranks;
  {
    std::vector<uint8_t> blob(thread_counts.size() * sizeof(uint64_t));
    if (!blob.empty()) std::memcpy(blob.data(), thread_counts.data(), blob.size());
    if (local) {
      threads_of_ranks.push_back(std::move(blob));
    } else {
      try {
        threads_of_ranks = gather_blobs(in.comm, blob);
      } catch (...) {
        check(OTF2_ERROR_MEM_ALLOC_FAILED);
      }
    }
  }

  check(OTF2_Archive_OpenDefFiles(archive));
  std::vector<OTF2_LocationRef> locations{static_cast<OTF2_LocationRef>(rank)};
  for (const ThreadTrace& thread : in.threads) locations.push_back(thread_location(rank, thread.thread));
  for (const OTF2_LocationRef location : locations) {
    OTF2_DefWriter* def = OTF2_Archive_GetDefWriter(archive, location);
    if (def == nullptr) continue;
    for (const ClockOffset& offset : in.offsets) {
      check(OTF2_DefWriter_WriteClockOffset(def, offset.time, offset.offset, offset.stddev));
    }
    check(OTF2_Archive_CloseDefWriter(archive, def));
  }
  check(OTF2_Archive_CloseDefFiles(archive));
  if (rank == 0 || local) {
    OTF2_GlobalDefWriter* global = OTF2_Archive_GetGlobalDefWriter(archive);
    if (global != nullptr) {
      std::vector<uint64_t> events(local ? in.global->hosts.size() : static_cast<std::size_t>(size));
      uint64_t global_first = UINT64_MAX;
      uint64_t global_last = 0;
      bool metrics = false;
      for (int r = 0; r < size; ++r) {
        const auto i = static_cast<std::size_t>(kShared * r);
        events[static_cast<std::size_t>(local ? in.location : r)] = all[i];
        metrics = metrics || all[i + 3] > 0;
        if (all[i] > 0) {
          global_first = std::min(global_first, all[i + 1]);
          global_last = std::max(global_last, all[i + 2]);
        }
      }
      if (global_first == UINT64_MAX) global_first = global_last = 0;
      try {
        write_global_definitions(global, in, events, threads_of_ranks, global_first, global_last, metrics, check);
      } catch (...) {
        check(OTF2_ERROR_MEM_ALLOC_FAILED);
      }
    }
  }
  check(OTF2_Archive_Close(archive));
  out.events += out.thread_events;
  out.otf2_errors = check.errors();
  return read_ok && check.errors() == 0;
}

}  // namespace orrery::measure

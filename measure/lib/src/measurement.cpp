#include "measurement.h"

#include <sys/stat.h>

#include <cstdio>
#include <string>
#include <vector>

#include "comm_registry.h"
#include "experiment.h"
#include "mpi_handlers.h"
#include "node_clock.h"
#include "ompt_state.h"
#include "program_region.h"
#include "regions.h"
#include "settings.h"
#include "thread_locations.h"
#include "topology.h"
#include "trace_writer.h"
#include "unify.h"

namespace orrery::measure {
namespace {
namespace field = run_json::key;  // run.json's keys

using nlohmann::json;

/// What lives only between start and stop.
struct Session {
  MPI_Comm comm = MPI_COMM_NULL;  ///< the measurement's own duplicate of MPI_COMM_WORLD
  NodeClock clock;        ///< the node's time base and offsets (node_clock.h)
  uint64_t monotonic_anchor = 0;
  uint64_t realtime_anchor = 0;
  bool started = false;
  std::string host;       ///< this rank's processor name (the emergency path may not call MPI)
  std::vector<uint32_t> omp_regions;  ///< local id per OpenMP region (define_omp_regions)
  UnificationCost unification;        ///< this rank's cost of unify() at MPI_Finalize
};

Session g_session;

std::string broadcast_string(MPI_Comm comm, std::string text) {
  int length = static_cast<int>(text.size());
  PMPI_Bcast(&length, 1, MPI_INT, 0, comm);
  text.resize(static_cast<std::size_t>(length));
  PMPI_Bcast(text.data(), length, MPI_CHAR, 0, comm);
  return text;
}

std::string processor_name() {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  PMPI_Get_processor_name(name, &length);
  return std::string(name, static_cast<std::size_t>(length > 0 ? length : 0));
}

json rank_statistics(const TraceOutput& trace, bool trace_ok, const std::string& archive) {
  const Settings& s = g_state.settings;
  struct stat info {};
  const std::string evt = s.experiment_dir + "/" + archive + "/traces/" + std::to_string(g_state.world_rank) + ".evt";
  const uint64_t bytes = ::stat(evt.c_str(), &info) == 0 ? static_cast<uint64_t>(info.st_size) : 0;
  json counted = json::object();
  uint64_t counted_total = g_state.counted_user_calls;
  for (std::size_t fn = 0; fn < g_state.counted_calls.size(); ++fn) {
    if (g_state.counted_calls[fn] == 0) continue;
    counted[kFunctions[fn].name] = g_state.counted_calls[fn];
    counted_total += g_state.counted_calls[fn];
  }
  const Anomalies& a = g_state.anomalies;
  uint64_t records = g_state.buffer->records();
  uint64_t write_errors = g_state.buffer->write_errors();
  uint64_t thread_unmatched = 0;
  const uint64_t thread_comms = g_comms.unregistered_thread_comms();
  const std::vector<WorkerLocation*> workers = worker_locations();
  for (const WorkerLocation* w : workers) {
    records += w->buffer->records();
    write_errors += w->buffer->write_errors();
    thread_unmatched += w->unmatched_leaves;
  }
  const uint64_t lost = write_errors > 0 || !trace_ok ? (records > trace.events ? records - trace.events : 0) : 0;
  return {{"rank", g_state.world_rank},
          {"events", trace.events},
          {"bytes", bytes},
          {"flushes", g_state.buffer->flushes()},
          {"samples", g_state.buffer->samples()},
          {"lost_events", lost},
          {"trace_written", trace_ok},
          {"otf2_errors", trace.otf2_errors},
          {"counted_not_traced", counted_total},
          {"counted_calls", counted},
          {"other_thread_calls", g_other_thread_events.load()},
          {"other_thread_mpi_calls", g_other_thread_mpi_calls.load()},
          {"threads", workers.size() + 1},
          {"thread_events", trace.thread_events},
          {"anomalies",
           {{"unmatched_leaves", a.unmatched_leaves},
            {"regions_closed_at_finalize", a.regions_closed_at_finalize},
            {"lazily_registered_communicators", a.lazily_registered_comms},
            {"request_bookkeeping_failures", a.unknown_requests},
            {"spill_write_errors", write_errors},
            {"thread_unmatched_leaves", thread_unmatched},
            {"thread_created_communicators", thread_comms},
            {"clamped_timestamps", trace.clamped_timestamps}}},
          {field::kClock, g_session.clock.describe(g_session.host)},
          {"unification",
           {{"bytes_received", g_session.unification.bytes_received},
            {"messages", g_session.unification.messages},
            {"cpu_seconds", g_session.unification.cpu_seconds},
            {"global_definitions_bytes", g_session.unification.global_definitions_bytes}}}};
}

json settings_json(const Settings& s) {
  return {{"experiment_dir", s.experiment_dir}, {field::kMode, s.mode},
          {"buffer_size", s.buffer_size},      {"filter", s.filter_path},
          {"sampling_interval_ms", s.sampling_interval_ms}, {"trace_queries", s.trace_queries},
          {"launcher", s.launcher}};
}

// Rank 0: measurement.json (and run.json without the launcher).
void write_reports(const std::vector<json>& ranks, const std::vector<std::string>& hosts) {
  json totals = {{"events", 0}, {"bytes", 0}, {"flushes", 0}, {"samples", 0}, {"lost_events", 0},
                 {"counted_not_traced", 0}, {"other_thread_calls", 0},
                 {"other_thread_mpi_calls", 0}};
  if (g_state.profile) {
    for (const char* key : {"call_paths", "visits", "messages", "collectives"}) totals[key] = 0;
  }
  json counted = json::object();
  std::vector<json> clocks;
  std::vector<json> per_rank = ranks;
  for (json& r : per_rank) {
    clocks.push_back(r.value(field::kClock, json(nullptr)));
    r.erase("clock");
  }
  const json clock = NodeClock::summarize(clocks);
  for (const json& r : ranks) {
    for (auto& [key, total] : totals.items()) total = total.get<uint64_t>() + r.value(key, uint64_t{0});
    const json calls = r.value("counted_calls", json::object());
    for (const auto& [name, count] : calls.items()) {
      counted[name] = counted.value(name, uint64_t{0}) + count.get<uint64_t>();
    }
  }
  totals["counted_calls"] = counted;
  const uint64_t end = realtime_now();
  const json measurement = {{"format", "orrery-measurement"},
                            {"version", 1},
                            {field::kRanks, g_state.world_size},
                            {field::kHosts, hosts},
                            {"start_time", iso_time(g_session.realtime_anchor)},
                            {"end_time", iso_time(end)},
                            {field::kSettings, settings_json(g_state.settings)},
                            {field::kClock, clock},
                            {field::kStatistics, {{field::kTotal, totals}, {field::kPerRank, per_rank}}},
                            {"trace", g_state.profile ? json(nullptr) : json("traces.otf2")},
                            {"profile", g_state.profile ? json("profile") : json(nullptr)},
                            {"openmp", openmp_tool_active()
                                           ? json{{"runtime", openmp_runtime_version()}, {"tool", "ompt"}}
                                           : json(nullptr)}};
  const std::string& dir = g_state.settings.experiment_dir;
  write_json(dir + "/measurement.json", measurement);
  if (!g_state.settings.launcher) {
    using namespace run_json::key;
    write_library_run_record(dir, {{kRanks, g_state.world_size},
                                   {kStartTime, iso_time(g_session.realtime_anchor)},
                                   {kEndTime, iso_time(end)},
                                   {kComplete, true},
                                   {kClock, clock},
                                   {kMeasurement, measurement}});
  }
  if (g_state.settings.verbose) {
    std::fprintf(stderr, "orrery: wrote %s (%llu events on %d ranks)\n", dir.c_str(),
                 static_cast<unsigned long long>(totals["events"].get<uint64_t>()), g_state.world_size);
  }
}

// ORRERY_MODE=profile: EXP/profile/rank-<r>.json (format in docs/measure.md).
bool write_profile(const TimeConverter& converter) noexcept {
  try {
    const CallTree& tree = g_state.tree;
    const double ns_per_tick =
        static_cast<double>(converter.to_ns(g_session.clock.first().ticks + 1000000000ULL) -
                            converter.to_ns(g_session.clock.first().ticks)) / 1e9;
    auto ns = [&](uint64_t ticks) { return static_cast<uint64_t>(static_cast<double>(ticks) * ns_per_tick + 0.5); };
    json regions = json::array();
    for (const RegionDef& r : g_state.definitions.regions()) {
      regions.push_back({{"name", r.name}, {"paradigm", paradigm_name(r.paradigm)}, {"file", r.file}, {"line", r.line}});
    }
    json paths = json::array();
    for (uint32_t i = 0; i < tree.nodes().size(); ++i) {
      const CallTree::Node& n = tree.nodes()[i];
      paths.push_back({{"id", i},
                       {"parent", n.parent == CallTree::kNone ? json(nullptr) : json(n.parent)},
                       {"region", n.region},
                       {"visits", n.visits},
                       {"inclusive_ns", ns(n.inclusive)},
                       {"exclusive_ns", ns(tree.exclusive(i))},
                       {"sends", n.sends},
                       {"receives", n.receives},
                       {"collectives", n.collectives},
                       {"bytes_sent", n.bytes_sent},
                       {"bytes_received", n.bytes_received},
                       {"bytes_coll_out", n.bytes_coll_out},
                       {"bytes_coll_in", n.bytes_coll_in}});
    }
    const std::string dir = g_state.settings.experiment_dir + "/profile";
    ::mkdir(dir.c_str(), 0755);
    return write_json(dir + "/rank-" + std::to_string(g_state.world_rank) + ".json",
                      {{"format", "orrery-profile"},
                       {"version", 1},
                       {"rank", g_state.world_rank},
                       {field::kRanks, g_state.world_size},
                       {"host", g_session.host},
                       {"regions", regions},
                       {"call_paths", paths}});
  } catch (...) {
    return false;
  }
}

/// What the trace writer needs of this rank's session, for an archive in
/// `directory` (over `comm`, or rank-local with MPI_COMM_NULL).
TraceInput session_trace_input(const std::string& directory, MPI_Comm comm,
                               const IdMapping& mapping, const GlobalDefinitions& global,
                               const TimeConverter& converter) {
  TraceInput input;
  input.directory = directory;
  input.comm = comm;
  input.location = g_state.world_rank;
  input.buffer = g_state.buffer.get();
  input.mapping = &mapping;
  input.global = &global;
  input.offsets = g_session.clock.offsets();
  input.clock = converter;
  input.monotonic_anchor = g_session.monotonic_anchor;
  input.realtime_anchor = g_session.realtime_anchor;
  input.root_region = g_state.root_region;
  input.program = executable_name();
  input.omp_regions = g_session.omp_regions;
  for (const WorkerLocation* w : worker_locations()) input.threads.push_back(ThreadTrace{w->thread, w->buffer.get()});
  return input;
}

void release_session() noexcept {
  g_state.buffer->discard_spill();
  g_state.buffer.reset();
  g_state.tree.clear();
  finish_handlers();
  reset_region_caches();
  reset_user_regions();
  g_session.clock.release();
  PMPI_Comm_free(&g_session.comm);
}

// Profile mode at MPI_Finalize: no unification, no trace; measurement.json
// and run.json as in trace mode (with "profile" instead of "trace").
void finish_profile(const std::string& host, bool profile_ok) noexcept {
  try {
    TraceOutput none;
    json mine = rank_statistics(none, false, ".");
    mine["trace_written"] = false;
    mine["profile_written"] = profile_ok;
    mine["call_paths"] = g_state.tree.nodes().size();
    uint64_t visits = 0;
    uint64_t messages = 0;
    uint64_t collectives = 0;
    for (const CallTree::Node& node : g_state.tree.nodes()) {
      visits += node.visits;
      messages += node.sends + node.receives;
      collectives += node.collectives;
    }
    mine["visits"] = visits;
    mine["messages"] = messages;
    mine["collectives"] = collectives;
    mine["host"] = host;
    const auto all = gather_blobs(g_session.comm, json::to_cbor(mine));
    if (g_state.world_rank == 0) {
      std::vector<json> ranks;
      std::vector<std::string> hosts;
      for (const auto& blob : all) {
        ranks.push_back(json::from_cbor(blob));
        hosts.push_back(ranks.back().value("host", std::string()));
        ranks.back().erase("host");
      }
      write_reports(ranks, hosts);
    }
  } catch (...) {
    if (g_state.world_rank == 0) std::fprintf(stderr, "orrery: could not write measurement.json\n");
  }
  release_session();
}

// Regions still open (main, the program root) are left now; the root is
// always open here by design and is not an anomaly.
void close_open_regions() noexcept {
  const uint64_t time = now();
  while (!g_state.stack.empty()) {
    if (g_state.stack.back() != g_state.root_region || g_state.stack.size() != 1) {
      ++g_state.anomalies.regions_closed_at_finalize;
    }
    record_leave(g_state.stack.back(), time);
  }
}

}  // namespace

void start_measurement(FunctionId init_fn, uint64_t enter_time) noexcept {
  if (g_session.started) return;
  g_session.started = true;
  try {
    PMPI_Comm_rank(MPI_COMM_WORLD, &g_state.world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &g_state.world_size);
    std::string warnings;
    g_state.settings = read_settings(warnings);
    std::string message;
    std::string dir;
    if (g_state.world_rank == 0) {
      dir = prepare_experiment(g_state.settings, message);
      if (!warnings.empty()) std::fputs(warnings.c_str(), stderr);
      if (!message.empty()) std::fprintf(stderr, "%s\n", message.c_str());
    }
    dir = broadcast_string(MPI_COMM_WORLD, dir);
    const bool kept_early_events = claim_recording_thread();
    if (dir.empty()) {  // not measuring: every wrapper passes straight through
      g_state.settings.experiment_dir.clear();
      discard_recording();
      return;
    }
    g_state.settings.experiment_dir = dir;
    PMPI_Comm_dup(MPI_COMM_WORLD, &g_session.comm);
    // Usually the buffer exists already (compiler/user regions before MPI_Init);
    // otherwise it spills into the experiment directory.
    g_state.hooks = false;
    prepare_recording(dir + "/.orrery-buffer-" + std::to_string(g_state.world_rank));
    // The buffer's first 64 MiB resident now rather than faulted in by the
    // calls (a larger buffer's rest only when used, as before).
    if (!g_state.profile) g_state.buffer->prefault(std::size_t{64} << 20);
    if (g_state.world_rank == 0 && !early_filter_error().empty()) {
      std::fprintf(stderr, "orrery: filter ignored: %s\n", early_filter_error().c_str());
    }
    if (!kept_early_events && g_state.world_rank == 0) {
      std::fprintf(stderr, "orrery: MPI_Init on another thread than the one that loaded the library; "
                           "regions entered before MPI_Init are not recorded\n");
    }
    init_handlers();
    g_session.host = processor_name();
    g_session.monotonic_anchor = monotonic_ns();
    g_session.realtime_anchor = realtime_now();
    g_session.clock.start(g_session.comm);
    g_state.active = true;
    g_state.hooks = true;
    g_workers_record.store(!g_state.profile, std::memory_order_release);
    install_exit_guard();
    const uint32_t region = mpi_region(init_fn);
    record_enter(region, enter_time);
    const uint64_t init_done = now();
    record_leave(region, init_done);
    // Resource sampling (trace mode): the first sample now, then with events.
    if (!g_state.profile && g_state.settings.sampling_interval_ms > 0) {
      g_state.buffer->start_sampling(
          SamplingSchedule(g_state.settings.sampling_interval_ms, ClockPair{g_load_time, g_load_ns}, g_tsc_clock),
          init_done);
    }
    if (g_state.settings.verbose && g_state.world_rank == 0) {
      std::fprintf(stderr, "orrery: measuring %d ranks into %s\n", g_state.world_size, dir.c_str());
    }
  } catch (...) {
    g_state.active = false;
    discard_recording();
  }
}

void stop_measurement(FunctionId finalize_fn, uint64_t enter_time) noexcept {
  if (!g_state.active) return;
  g_workers_record.store(false, std::memory_order_release);
  remove_exit_guard();
  const uint32_t region = mpi_region(finalize_fn);
  record_enter(region, enter_time);
  // MPI_Finalize synchronizes all ranks, but the real PMPI_Finalize can only
  // run after the trace is written (with MPI). Its synchronization is done
  // here, inside the recorded region (as Score-P does): a rank that arrives
  // late makes the others wait in MPI_Finalize, where the analysis finds it
  // (finalize_wait), not in the unification after it.
  PMPI_Barrier(g_session.comm);
  g_session.clock.stop();
  record_leave(region, now());
  // The last resource sample, inside the still open program regions.
  g_state.buffer->sample_now(now());
  g_state.buffer->stop_sampling();
  close_resource_files();
  close_open_regions();
  close_worker_regions(openmp_last_team_end() != 0 ? openmp_last_team_end() : now());
  const TimeConverter converter = g_session.clock.converter();
  g_state.active = false;
  g_state.hooks = false;

  resolve_source_locations();
  if (!g_state.profile) {
    try {
      g_session.omp_regions = define_omp_regions(g_state.definitions);
    } catch (...) {
      g_session.omp_regions.clear();  // their events are written under region 0
    }
  }
  GlobalDefinitions global;
  IdMapping mapping;
  std::string host;
  try {
    host = processor_name();
  } catch (...) {
  }
  if (g_state.profile) {
    const bool profile_ok = write_profile(converter);
    finish_profile(host, profile_ok);
    return;
  }
  const bool unified = unify(g_session.comm, g_state.definitions, host, global, mapping, &g_session.unification);
  if (unified) {
    write_topologies(g_state.settings.experiment_dir + "/topology", g_state.world_rank,
                     g_comms.in_neighbors(), &mapping.comms, &g_comms.cartesian());
  }
  TraceOutput trace;
  bool trace_ok = false;
  if (unified) {
    trace_ok = write_trace(session_trace_input(g_state.settings.experiment_dir, g_session.comm,
                                               mapping, global, converter),
                           trace);
  } else if (g_state.world_rank == 0) {
    std::fprintf(stderr, "orrery: definition unification failed; no trace written\n");
  }
  try {
    const std::vector<uint8_t> mine = json::to_cbor(rank_statistics(trace, trace_ok, "."));
    const auto all = gather_blobs(g_session.comm, mine);
    if (g_state.world_rank == 0) {
      std::vector<json> ranks;
      for (const auto& blob : all) ranks.push_back(json::from_cbor(blob));
      write_reports(ranks, global.hosts);
    }
  } catch (...) {
    if (g_state.world_rank == 0) std::fprintf(stderr, "orrery: could not write measurement.json\n");
  }
  release_session();
}

void emergency_stop(const char* reason, int signal_number) noexcept {
  if (!g_state.active) return;
  g_state.active = false;  // from here on wrappers and hooks pass straight through
  g_state.hooks = false;
  g_workers_record.store(false, std::memory_order_release);
  try {
    close_open_regions();
    close_worker_regions(openmp_last_team_end() != 0 ? openmp_last_team_end() : now());
    if (!g_state.profile) g_session.omp_regions = define_omp_regions(g_state.definitions);
    const TimeConverter converter = g_session.clock.converter();
    // Source lines of compiler regions cost a libdw scan of every loaded
    // module: skipped under a signal, where mpirun's SIGKILL may follow soon.
    if (signal_number == 0) resolve_source_locations();
    // No unification (other ranks may be gone): local ids are written as the
    // archive's global ids; communicator members are still world ranks.
    GlobalDefinitions global;
    global.regions = g_state.definitions.regions();
    global.comms = g_state.definitions.comms();
    global.hosts.assign(static_cast<std::size_t>(g_state.world_size), g_session.host);
    IdMapping mapping;
    for (uint32_t i = 0; i < global.regions.size(); ++i) mapping.regions.push_back(i);
    for (uint32_t i = 0; i < global.comms.size(); ++i) mapping.comms.push_back(i);
    const std::string& dir = g_state.settings.experiment_dir;
    const std::string archive = "incomplete/rank-" + std::to_string(g_state.world_rank);
    write_topologies(dir + "/topology", g_state.world_rank, g_comms.in_neighbors(), nullptr,
                     &g_comms.cartesian());
    ::mkdir((dir + "/incomplete").c_str(), 0755);
    ::mkdir((dir + "/" + archive).c_str(), 0755);
    const TraceInput input =
        session_trace_input(dir + "/" + archive, MPI_COMM_NULL, mapping, global, converter);
    TraceOutput trace;
    const bool trace_ok = g_state.profile ? write_profile(converter) : write_trace(input, trace);
    json statistics = rank_statistics(trace, trace_ok, archive);
    const json marker = {{"format", "orrery-incomplete"},
                         {"version", 1},
                         {"rank", g_state.world_rank},
                         {field::kRanks, g_state.world_size},
                         {"host", g_session.host},
                         {"reason", reason},
                         {"signal", signal_number},
                         {"time", iso_time(realtime_now())},
                         {"start_time", iso_time(g_session.realtime_anchor)},
                         {"trace", g_state.profile ? json(nullptr) : json(archive + "/traces.otf2")},
                         {"profile", g_state.profile ? json("profile/rank-" + std::to_string(g_state.world_rank) + ".json")
                                                     : json(nullptr)},
                         {"ids", "local"},
                         {field::kSettings, settings_json(g_state.settings)},
                         {field::kStatistics, statistics}};
    write_json(dir + "/" + archive + ".json", marker);
    if (g_state.world_rank == 0 && !g_state.settings.launcher) {
      using namespace run_json::key;
      write_library_run_record(dir, {{kRanks, g_state.world_size},
                                     {kStartTime, iso_time(g_session.realtime_anchor)},
                                     {kEndTime, iso_time(realtime_now())},
                                     {kComplete, false},
                                     {kIncomplete, marker}});
    }
    g_state.buffer->discard_spill();
    if (g_state.settings.verbose || g_state.world_rank == 0) {
      std::fprintf(stderr, "orrery: rank %d ended without MPI_Finalize (%s); local trace of %llu events in %s/%s\n",
                   g_state.world_rank, reason, static_cast<unsigned long long>(trace.events), dir.c_str(),
                   archive.c_str());
    }
  } catch (...) {
  }
}

void abort_measurement(int error_code) noexcept {
  if (g_state.settings.experiment_dir.empty()) return;
  const bool was_active = g_state.active;
  g_state.active = false;
  g_workers_record.store(false, std::memory_order_release);
  g_state.hooks = false;
  remove_exit_guard();
  if (was_active || g_session.started) write_abort_marker(g_state.settings, g_state.world_rank, error_code);
  if (g_state.buffer) g_state.buffer->discard_spill();
}

}  // namespace orrery::measure

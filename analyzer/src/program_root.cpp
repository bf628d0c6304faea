#include "orrery/analyzer/program_root.h"

#include <algorithm>

#include "orrery/run_json.h"
#include "vmpi.h"

namespace orrery::analyzer {
namespace {

std::string basename(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string program_name(const std::string& experiment) {
  const auto run = run_json::read(run_json::file_of(experiment));
  if (!run) return "program";
  const auto program = run_json::at(*run, {run_json::key::kMeasurement, run_json::key::kProgram});
  if (program.is_string() && !program.get<std::string>().empty()) {
    return basename(program.get<std::string>());
  }
  for (const char* key : {run_json::key::kCommand, run_json::key::kCommandLine}) {
    if (!run->contains(key)) continue;
    std::string name = program_from_command(run_json::command_words((*run)[key]));
    if (!name.empty()) return name;
  }
  return "program";
}

std::string agreed_program_name(const std::string& experiment, const LocalTrace& trace,
                                MPI_Comm world) {
  const std::string from_run = program_name(experiment);
  if (from_run != "program") return from_run;  // the same file on every rank
  int rank = 0;
  vmpi::Comm_rank(world, &rank);
  std::string name = rank == 0 ? trace.program_name : std::string();
  int length = static_cast<int>(name.size());
  vmpi::Bcast(&length, 1, MPI_INT, 0, world);
  name.resize(static_cast<std::size_t>(length));
  vmpi::Bcast(name.data(), length, MPI_CHAR, 0, world);
  return name.empty() ? from_run : basename(name);
}

uint32_t add_root_region(Definitions& definitions, const std::string& name) {
  RegionDef root;
  root.name = name;
  root.paradigm = Paradigm::kMeasurement;
  root.role = RegionRole::kArtificial;
  definitions.regions.push_back(root);
  return static_cast<uint32_t>(definitions.regions.size() - 1);
}

bool needs_root(const LocalTrace& trace) {
  // One top-level region encloses everything iff there is exactly one
  // top-level instance and no communication outside regions.
  return trace.loose_events > 0 || trace.top_level_instances > 1;
}

bool enclose_in_root(LocalTrace& trace, uint32_t root_region) {
  if (!needs_root(trace)) return false;
  // The root becomes call path 0; every other call path moves up by one.
  trace.calltree.enclose(root_region);
  trace.folded.resize(trace.calltree.size());
  std::rotate(trace.folded.rbegin(), trace.folded.rbegin() + 1, trace.folded.rend());
  EventStore& events = trace.events;
  const std::size_t n = events.size();
  const int64_t duration = trace.last_time - trace.first_time;
  if (n == 0) {
    // Everything below was folded: so is the root.
    trace.folded[0] = FoldedTotals{1, duration - trace.folded_top_level_time};
    for (FoldedSpan& span : trace.folded_spans) ++span.callpath;
    trace.top_level_instances = 1;
    return true;
  }
  // Shift every event up by one (from the back, in place), then put the root
  // Enter in front and its Leave at the end. Enter/Leave links are event
  // indices and move along; the other kinds link into the op tables.
  const Event last = events[n - 1];  // copied: push may start a new chunk
  events.push_back(last);
  for (std::size_t i = n; i-- > 0;) {
    Event event = events[i];
    if (event.kind() == EventKind::kEnter || event.kind() == EventKind::kLeave) ++event.link;
    if (event.kind() == EventKind::kEnter) event.set_ref(event.ref() + 1);
    events[i + 1] = event;
  }
  const auto leave_index = static_cast<uint32_t>(n + 1);
  events[0] = Event::make(trace.first_time, EventKind::kEnter, 0, leave_index);
  uint32_t folded_ref = kNone;
  if (trace.folded_top_level_time != 0) {
    folded_ref = static_cast<uint32_t>(trace.folded_child_time.size());
    trace.folded_child_time.push_back(trace.folded_top_level_time);
  }
  events.push_back(Event::make(trace.last_time, EventKind::kLeave, folded_ref, 0));
  const auto shift = [](uint32_t& index) {
    if (index != kNone) ++index;
  };
  for (auto* table : {&trace.sends, &trace.recvs}) {
    for (MessageOp& op : *table) {
      shift(op.post_call);
      shift(op.complete_call);
      shift(op.post_event);
      shift(op.complete_event);
    }
  }
  for (CollectiveOp& op : trace.collectives) {
    shift(op.start_call);
    shift(op.complete_call);
  }
  for (FoldedSpan& span : trace.folded_spans) {
    ++span.before_event;
    ++span.callpath;
  }
  trace.top_level_instances = 1;
  trace.loose_events = 0;
  return true;
}

}  // namespace orrery::analyzer

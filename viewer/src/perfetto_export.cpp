// Chrome trace-event format (the public "Trace Event Format" document that
// Perfetto and chrome://tracing read): a JSON object whose "traceEvents" are
// metadata events ("M": process and thread names), complete events ("X":
// ts and dur in microseconds) and flow events ("s"/"f" sharing an id; the
// end binds to the enclosing slice, "bp": "e"). The trace is read through the
// viewer's timeline source, which also matches each send with its receive.

#include "perfetto_export.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace orrery::viewer {
namespace {

namespace tl = analyzer::timeline;

/// Microseconds with nanosecond digits.
std::string micros(double seconds) {
  char text[48];
  std::snprintf(text, sizeof text, "%.3f", seconds * 1e6);
  return text;
}

const char* category(tl::RegionKind kind) {
  switch (kind) {
    case tl::RegionKind::kMpi: return "mpi";
    case tl::RegionKind::kMeasurement: return "measurement";
    case tl::RegionKind::kCompute: break;
  }
  return "compute";
}

class EventWriter {
 public:
  explicit EventWriter(std::ostream& out) : out_(out) { out_ << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n"; }
  void event(const std::string& body) {
    out_ << (first_ ? "" : ",\n") << '{' << body << '}';
    first_ = false;
  }
  void finish(const nlohmann::json& metadata) { out_ << "\n],\"metadata\":" << metadata.dump() << "}\n"; }

 private:
  std::ostream& out_;
  bool first_ = true;
};

std::string where(uint32_t rank) { return "\"pid\":" + std::to_string(rank) + ",\"tid\":0"; }

}  // namespace

PerfettoCounts write_perfetto(TimelineSource& source, double from, double to, std::ostream& out) {
  const tl::Definitions& definitions = source.definitions();
  const auto ranks = static_cast<uint32_t>(definitions.ranks.size());
  PerfettoCounts counts;
  EventWriter writer(out);
  const auto inside = [&](double t) { return t >= from && t <= to; };
  for (uint32_t r = 0; r < ranks; ++r) {
    writer.event("\"ph\":\"M\",\"name\":\"process_name\"," + where(r) + ",\"args\":{\"name\":" +
                 nlohmann::json(definitions.ranks[r].name).dump() + "}");
    writer.event("\"ph\":\"M\",\"name\":\"process_sort_index\"," + where(r) + ",\"args\":{\"sort_index\":" +
                 std::to_string(r) + "}");
    writer.event("\"ph\":\"M\",\"name\":\"thread_name\"," + where(r) + ",\"args\":{\"name\":\"thread 0\"}");
  }
  for (uint32_t r = 0; r < ranks; ++r) {
    const auto data = source.rank(r);
    for (const tl::Instance& instance : data->trace.instances) {
      if (instance.end < from || instance.begin > to) continue;
      const double begin = std::max(instance.begin, from);
      const double end = std::min(instance.end, to);
      const tl::Region& region = definitions.regions.at(instance.region);
      writer.event("\"ph\":\"X\",\"name\":" + nlohmann::json(region.name).dump() + ",\"cat\":\"" +
                   category(region.kind) + "\"," + where(r) + ",\"ts\":" + micros(begin) +
                   ",\"dur\":" + micros(end - begin));
      ++counts.slices;
    }
    // Flows are written from the sender's side, where the matched receive's time is known.
    const auto matched = source.matches(r);
    const auto& sends = data->trace.sends;
    for (std::size_t i = 0; i < sends.size(); ++i) {
      const double receive = matched->receive_of_send[i];
      if (std::isnan(receive) || !inside(sends[i].time) || !inside(receive)) continue;
      const std::string id = std::to_string(++counts.flows);
      const std::string args = ",\"args\":{\"bytes\":" + std::to_string(sends[i].bytes) +
                               ",\"tag\":" + std::to_string(sends[i].tag) + "}";
      writer.event("\"ph\":\"s\",\"name\":\"message\",\"cat\":\"message\",\"id\":" + id + "," + where(r) +
                   ",\"ts\":" + micros(sends[i].time) + args);
      writer.event("\"ph\":\"f\",\"bp\":\"e\",\"name\":\"message\",\"cat\":\"message\",\"id\":" + id + "," +
                   where(sends[i].peer) + ",\"ts\":" + micros(receive) + args);
    }
  }
  writer.finish({{"experiment", definitions.experiment},
                 {"ranks", ranks},
                 {"from_seconds", from},
                 {"to_seconds", std::min(to, definitions.duration)},
                 {"creator", "orrery export --format perfetto"}});
  return counts;
}

}  // namespace orrery::viewer

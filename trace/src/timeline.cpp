// The timeline reader: one rank's events as region instances and message
// ends, for display. The definitions are the analyzer's own
// (otf2_reader.cpp); the events come from stream_rank (timeline_stream.cpp).

#include "orrery/trace/timeline.h"

#include <algorithm>
#include <filesystem>

#include "orrery/trace/timeline_stream.h"
#include "orrery/trace/trace_reader.h"

namespace orrery::analyzer::timeline {
namespace {

namespace fs = std::filesystem;

/// Builds a RankTimeline from the streamed events.
class Collector final : public EventVisitor {
 public:
  Collector(const Definitions& defs, RankTimeline& out) : defs_(defs), out_(out) {}

  void enter(uint64_t /*position*/, int64_t ticks, uint32_t region) override {
    const double t = at(ticks);
    Instance instance;
    instance.begin = t;
    instance.end = t;
    instance.region = region;
    instance.parent = stack_.empty() ? kNoInstance : stack_.back();
    instance.depth = static_cast<uint32_t>(stack_.size());
    stack_.push_back(static_cast<uint32_t>(out_.instances.size()));
    out_.instances.push_back(instance);
  }
  void leave(uint64_t /*position*/, int64_t ticks) override {
    const double t = at(ticks);
    if (stack_.empty()) return;  // an unmatched leave: nothing to close
    out_.instances[stack_.back()].end = t;
    stack_.pop_back();
  }
  void message(uint64_t /*position*/, int64_t ticks, bool send, uint32_t comm, uint32_t peer, uint32_t tag,
               uint64_t bytes) override {
    const double t = at(ticks);
    MessageEnd end;
    end.time = t;
    end.call_enter = t;
    end.comm = comm;
    end.peer = peer;
    end.tag = tag;
    end.bytes = bytes;
    if (!stack_.empty()) {
      end.instance = stack_.back();
      end.call_enter = out_.instances[end.instance].begin;
      if (send) end.time = end.call_enter;
    }
    (send ? out_.sends : out_.receives).push_back(end);
  }
  void sample(uint64_t /*position*/, int64_t ticks, const Sample& sample) override {
    last_ = seconds(defs_, ticks);
    out_.samples.push_back(sample);
  }

  /// Regions still open at the end (a truncated trace) end at the last event.
  void finish() {
    for (const uint32_t open : stack_) out_.instances[open].end = last_;
  }

 private:
  double at(int64_t ticks) {
    last_ = seconds(defs_, ticks);
    return last_;
  }

  const Definitions& defs_;
  RankTimeline& out_;
  std::vector<uint32_t> stack_;
  double last_ = 0;
};

}  // namespace

std::size_t RankTimeline::bytes() const {
  return sizeof(*this) + instances.capacity() * sizeof(Instance) +
         segments.capacity() * sizeof(Segment) +
         (sends.capacity() + receives.capacity()) * sizeof(MessageEnd) +
         samples.capacity() * sizeof(Sample);
}

bool has_trace(const std::string& experiment) {
  std::error_code ignored;
  return fs::is_regular_file(anchor_path(experiment), ignored);
}

Definitions read_definitions(const std::string& experiment) {
  // The analyzer's own reading of the definitions (ranks resolved the same
  // way), reduced to what the timeline draws.
  const analyzer::Definitions full = analyzer::read_definitions(experiment);
  Definitions defs;
  defs.experiment = experiment;
  defs.resolution = full.timer_resolution;
  defs.global_offset = full.global_offset;
  defs.duration = static_cast<double>(full.trace_length) / static_cast<double>(full.timer_resolution);
  for (const RegionDef& region : full.regions) {
    Region def;
    def.name = region.name;
    def.kind = region.paradigm == Paradigm::kMpi ? RegionKind::kMpi
               : region.paradigm == Paradigm::kMeasurement && def.name.rfind("ORRERY_", 0) == 0
                   ? RegionKind::kMeasurement
                   : RegionKind::kCompute;
    defs.regions.push_back(std::move(def));
  }
  for (const RankDef& rank : full.ranks) defs.ranks.push_back(Rank{rank.location, rank.name});
  for (const auto& [id, comm] : full.comms) {
    if (id >= defs.comm_members.size()) {
      defs.comm_members.resize(std::size_t{id} + 1);
      defs.comm_is_self.resize(std::size_t{id} + 1, false);
    }
    defs.comm_is_self[id] = comm.is_self;
    defs.comm_members[id] = comm.members;
  }
  return defs;
}

RankTimeline read_rank(const Definitions& definitions, uint32_t rank) {
  RankTimeline out;
  out.rank = rank;
  Collector collector(definitions, out);
  stream_rank(definitions, rank, collector);
  collector.finish();
  for (MessageEnd& receive : out.receives) {
    if (receive.instance != kNoInstance) receive.time = out.instances[receive.instance].end;
  }
  out.segments = flatten(out.instances);
  out.instances.shrink_to_fit();
  out.sends.shrink_to_fit();
  out.receives.shrink_to_fit();
  out.samples.shrink_to_fit();
  return out;
}

std::vector<Segment> flatten(const std::vector<Instance>& instances) {
  std::vector<Segment> out;
  out.reserve(instances.size() * 2);
  std::vector<uint32_t> open;  // open instances, innermost last
  double cursor = 0;
  auto emit = [&out, &cursor](double until, uint32_t instance) {
    if (until > cursor) {
      out.push_back({cursor, until, instance});
      cursor = until;
    }
  };
  // Closes the innermost open instance: its tail after its last child.
  auto close_top = [&] {
    emit(instances[open.back()].end, open.back());
    open.pop_back();
  };
  for (uint32_t i = 0; i < instances.size(); ++i) {
    const Instance& instance = instances[i];
    while (!open.empty() && open.back() != instance.parent) close_top();
    if (open.empty()) cursor = std::max(cursor, instance.begin);  // a gap between roots
    else emit(instance.begin, open.back());
    cursor = std::max(cursor, instance.begin);
    open.push_back(i);
  }
  while (!open.empty()) close_top();
  return out;
}

}  // namespace orrery::analyzer::timeline

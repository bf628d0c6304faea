#pragma once
// The trace behind the timeline panel: an experiment's OTF2 archive read one
// rank at a time (orrery::analyzer::timeline), cached per rank within a
// memory budget, and answered as windows merged to a pixel width so that an
// answer's size depends on ranks × width, never on the trace's size.

#include <condition_variable>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "orrery/trace/timeline.h"

namespace orrery::viewer {

class TimelineSummary;

/// When windows are drawn from the timeline summary (timeline_summary.h):
/// auto when the trace's event files exceed kAutoSummaryBytes.
enum class SummaryMode { kAuto, kAlways, kNever };
constexpr std::size_t kAutoSummaryBytes = std::size_t{64} << 20U;

/// One rank's trace plus its message index.
struct RankData {
  analyzer::timeline::RankTimeline trace;
  /// (comm, peer's world rank, tag) -> send / receive indices in order, and each one's
  /// ordinal there: the k-th send to a peer matches the peer's k-th receive from it.
  using Key = std::tuple<uint32_t, uint32_t, uint32_t>;
  std::map<Key, std::vector<uint32_t>> sends_by_key;
  std::map<Key, std::vector<uint32_t>> receives_by_key;
  std::vector<uint32_t> send_ordinal;
  std::vector<uint32_t> receive_ordinal;
  std::size_t bytes = 0;
};

/// A window request: times in seconds, ranks [first_rank, first_rank + ranks).
struct TimelineWindow {
  double t0 = 0;
  double t1 = 0;
  uint32_t width = 1000;
  uint32_t first_rank = 0;
  uint32_t ranks = 0;
  std::size_t max_messages = 2000;
  /// A call path's chain of region names (trace_chain applied): its instances
  /// are marked per row ("marks"), merged to a pixel with their time.
  std::vector<std::string> callpath;
  /// Per rank: chains (trace_chain applied) of the call paths with critical-path
  /// time there; their instances are outlined per row ("critical"), merged likewise.
  std::map<uint32_t, std::vector<std::vector<std::string>>> critical;
};

/// One receiving call's late-sender wait: from its enter to the latest
/// matched send's enter (at most its exit), positive only (docs/design.md §4).
struct CallWait {
  uint32_t instance = analyzer::timeline::kNoInstance;
  double enter = 0;
  double exit = 0;
  double wait_end = 0;       ///< enter + the wait
  uint32_t sender = 0;       ///< world rank of the latest sender
  std::size_t first_receive = 0;  ///< receives [first_receive, end_receive) of the call
  std::size_t end_receive = 0;
  [[nodiscard]] double wait() const { return wait_end > enter ? wait_end - enter : 0.0; }
};

/// A matched message (times in seconds).
struct Message {
  uint32_t sender = 0;
  uint32_t receiver = 0;
  double send = 0;          ///< enter of the send call
  double receive = 0;       ///< exit of the receive (or completing) call
  double receive_enter = 0; ///< enter of that call
  uint64_t bytes = 0;
  uint32_t tag = 0;
  uint32_t send_instance = 0;
  uint32_t receive_instance = 0;
};

class TimelineSource {
 public:
  /// `experiment`: a directory holding traces.otf2 (or the anchor itself).
  explicit TimelineSource(std::string experiment, std::size_t budget_bytes = std::size_t{1} << 30U);

  [[nodiscard]] const std::string& experiment() const { return experiment_; }
  /// The global definitions, read on first use. Throws InputError.
  const analyzer::timeline::Definitions& definitions();
  /// One rank, read on first use and cached (least recently used dropped beyond the budget).
  std::shared_ptr<const RankData> rank(uint32_t rank);

  /// {duration, ranks, regions} for the page.
  nlohmann::json info();
  /// The merged window (see docs/viewer.md "Timeline").
  nlohmann::json window(const TimelineWindow& request);
  /// The instance's region and the region names from its root down to it.
  struct InstanceInfo {
    analyzer::timeline::Instance instance;
    std::vector<std::string> path;
    std::vector<analyzer::timeline::MessageEnd> sends;     ///< posted by this call
    std::vector<analyzer::timeline::MessageEnd> receives;  ///< completed by this call
    double wait = 0;  ///< its late-sender wait (0 if none)
    uint32_t wait_sender = 0;
  };
  InstanceInfo instance(uint32_t rank, uint32_t index);

  /// Per rank, each receive's matched send time and each send's matched receive
  /// time (NaN where unmatched); computed once per rank, kept (16 bytes per message).
  struct Matches {
    std::vector<double> send_of_receive;
    std::vector<double> receive_of_send;
  };
  std::shared_ptr<const Matches> matches(uint32_t rank);

  /// The receiving calls of a rank with matched senders, in receive order.
  std::vector<CallWait> call_waits(uint32_t rank);

  /// The instance of the call path (a trace_chain) on `rank` with the longest
  /// late-sender wait, else the longest; nullopt if the rank never ran it.
  std::optional<analyzer::timeline::Instance> worst_instance(uint32_t rank,
                                                             const std::vector<std::string>& chain);

  void set_summary_mode(SummaryMode mode) { summary_mode_ = mode; }
  /// The summary when windows use it (per the mode): opened, or built (rebuilt
  /// when stale or corrupt) on first use; nullptr when not used or not buildable.
  std::shared_ptr<const TimelineSummary> summary();
  /// What became of the summary: {used, path, bytes, build_seconds, note}.
  [[nodiscard]] nlohmann::json summary_status() const;

  /// Ranks read so far (tests).
  [[nodiscard]] std::size_t reads() const;
  [[nodiscard]] std::size_t cached_bytes() const;

 private:
  std::shared_ptr<const RankData> load(uint32_t rank);
  void prepare_summary();
  nlohmann::json summary_window(const TimelineWindow& request, const TimelineSummary& summary);

  std::string experiment_;
  std::size_t budget_;
  std::once_flag definitions_once_;
  std::optional<analyzer::timeline::Definitions> definitions_;
  std::string definitions_error_;

  mutable std::mutex mutex_;
  std::condition_variable loaded_;
  std::map<uint32_t, std::shared_ptr<const RankData>> cache_;
  std::list<uint32_t> recency_;  ///< most recently used first
  std::map<uint32_t, bool> loading_;
  std::size_t cached_bytes_ = 0;
  std::size_t reads_ = 0;
  std::mutex io_mutex_;
  std::map<uint32_t, std::shared_ptr<const Matches>> matches_;  ///< one OTF2 read at a time
  SummaryMode summary_mode_ = SummaryMode::kAuto;
  std::once_flag summary_once_;
  std::shared_ptr<const TimelineSummary> summary_;
  nlohmann::json summary_status_ = {{"used", false}};
};

}  // namespace orrery::viewer

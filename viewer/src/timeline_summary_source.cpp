// The TimelineSource's summary (timeline_data.h): found beside the trace,
// checked, rebuilt when stale or corrupt, and the windows drawn from it.

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "orrery/trace/trace_reader.h"
#include "timeline_data.h"
#include "timeline_summary.h"
#include "timeline_summary_view.h"

namespace orrery::viewer {
namespace {

namespace fs = std::filesystem;

std::uintmax_t event_bytes(const analyzer::timeline::Definitions& defs) {
  const fs::path dir = fs::path(analyzer::anchor_path(defs.experiment)).replace_extension("");
  std::uintmax_t total = 0;
  for (const auto& rank : defs.ranks) {
    std::error_code ignored;
    const auto size = fs::file_size(dir / (std::to_string(rank.location) + ".evt"), ignored);
    if (!ignored) total += size;
  }
  return total;
}

/// Beside the trace; where that directory cannot be written, the temporary
/// directory (named after the trace's fingerprint).
std::vector<std::string> summary_places(const analyzer::timeline::Definitions& defs) {
  const fs::path beside = fs::path(analyzer::anchor_path(defs.experiment)).parent_path() / kSummaryFile;
  std::array<char, 64> name{};
  std::snprintf(name.data(), name.size(), "orrery-timeline-%016llx.summary",
                static_cast<unsigned long long>(summary_fingerprint(defs)));
  return {beside.string(), (fs::temp_directory_path() / name.data()).string()};
}

}  // namespace

std::shared_ptr<const TimelineSummary> TimelineSource::summary() {
  if (summary_mode_ == SummaryMode::kNever) return nullptr;
  std::call_once(summary_once_, [this] { prepare_summary(); });
  return summary_;
}

nlohmann::json TimelineSource::summary_status() const {
  const std::lock_guard lock(mutex_);
  return summary_status_;
}

void TimelineSource::prepare_summary() {
  nlohmann::json status = {{"used", false}};
  try {
    const auto& defs = definitions();
    if (summary_mode_ == SummaryMode::kAuto && event_bytes(defs) < kAutoSummaryBytes) {
      status["note"] = "the trace is small: windows are drawn from its events";
    } else {
      const std::lock_guard io(io_mutex_);
      std::string note;
      for (const std::string& path : summary_places(defs)) {
        std::error_code ignored;
        if (fs::exists(path, ignored)) {
          try {
            summary_ = std::make_shared<const TimelineSummary>(defs, path);
            status = {{"used", true}, {"path", path}, {"bytes", summary_->bytes()}, {"built", false}};
            break;
          } catch (const SummaryRejected& e) {
            note = std::string(e.what()) + (e.stale() ? "; rebuilt" : "; not trusted, rebuilt");
          }
        }
        const auto start = std::chrono::steady_clock::now();
        try {
          build_summary(defs, path);
        } catch (const InputError& e) {
          note = e.what();
          continue;  // the next place
        }
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        summary_ = std::make_shared<const TimelineSummary>(defs, path);
        status = {{"used", true}, {"path", path}, {"bytes", summary_->bytes()}, {"built", true},
                  {"build_seconds", took.count()}};
        break;
      }
      if (!note.empty()) status["note"] = note;
    }
  } catch (const InputError& e) {
    summary_ = nullptr;
    status = {{"used", false}, {"note", std::string("no timeline summary: ") + e.what()}};
  }
  const std::lock_guard lock(mutex_);
  summary_status_ = std::move(status);
}

}  // namespace orrery::viewer

// The API's findings page and its views over the whole trace (utilization,
// communication, a call path's worst instance); see api.h.

#include <filesystem>
#include <utility>

#include "api.h"
#include "api_params.h"
#include "call_stack.h"
#include "callpath_match.h"
#include "orrery/error.h"
#include "orrery/report/trees.h"
#include "resource_samples.h"
#include "run_facts.h"
#include "source_lines.h"
#include "topology_view.h"
#include "trace_views.h"

namespace orrery::viewer {

using nlohmann::json;

void ViewerApi::add_findings_source(std::unique_ptr<FindingSource> source) {
  finding_sources_.push_back(std::move(source));
}

void ViewerApi::set_run_record(std::size_t index, json record, std::string why_none) {
  run_records_.at(index) = std::move(record);
  why_no_run_record_.at(index) = std::move(why_none);
}

json ViewerApi::findings() {
  json result = collect_findings(*report_, finding_sources_);
  result["trace"] = timelines_[0] != nullptr;
  return result;
}

json ViewerApi::facts() {
  json runs = json::array({run_facts(*report_, run_records_[0], why_no_run_record_[0])});
  if (other_) runs.push_back(run_facts(*other_, run_records_[1], why_no_run_record_[1]));
  for (std::size_t run = 0; run < runs.size(); ++run) runs[run].update(efficiency_facts(analyses_[run]));
  // Each run's trace (comparing, the other run's too): its length, or why it cannot be read.
  json traces = json::array();
  for (std::size_t run = 0; run < runs.size(); ++run) {
    json trace = nullptr;
    if (timelines_[run]) {
      try {
        const auto& defs = timelines_[run]->definitions();
        trace = {{"duration", defs.duration}, {"ranks", defs.ranks.size()}, {"regions", defs.regions.size()}};
      } catch (const InputError& e) {
        trace = {{"error", e.what()}};
      }
    }
    traces.push_back(std::move(trace));
  }
  json first = traces[0];
  return {{"runs", std::move(runs)}, {"trace", std::move(first)}, {"traces", std::move(traces)}};
}

std::vector<std::string> ViewerApi::callpath_chain(std::size_t row) const {
  // A call path only the other run has: its chain in the other report.
  const bool theirs = other_ && row >= report_->callpath_count();
  const auto& h = theirs ? other_->header() : report_->header();
  if (theirs) row = comparison_.union_to_b.at(row);
  return report::callpath_chain(h, row);
}

std::pair<double, double> ViewerApi::trace_window(const Params& params, TimelineSource& trace) {
  const auto& defs = trace.definitions();
  const double t0 = time_param(params, "t0", 0);
  const double t1 = time_param(params, "t1", defs.duration > 0 ? defs.duration : 1);
  if (!(t1 > t0)) throw UsageError("parameter 't1' must be after 't0'");
  return {t0, t1};
}

json ViewerApi::utilization(const Params& params) {
  TimelineSource& source = trace(trace_run(params));
  const auto [t0, t1] = trace_window(params, source);
  const std::size_t bins = count_param(params, "bins", 400, 1, 8192);
  return viewer::utilization(source, t0, t1, bins);
}

json ViewerApi::communication(const Params& params) {
  TimelineSource& source = trace(trace_run(params));
  const auto [t0, t1] = trace_window(params, source);
  std::vector<std::string> chain;
  if (const auto it = params.find("callpath"); it != params.end() && it->second != "all") {
    chain = trace_chain(source.definitions(), callpath_chain(size_param(params, "callpath", callpath_rows())));
  }
  return viewer::communication(source, t0, t1, chain);
}

// GET /api/samples?t0=&t1=&first_rank=&ranks=&points=[&run=]
json ViewerApi::samples(const Params& params) {
  TimelineSource& source = trace(trace_run(params));
  const auto [t0, t1] = trace_window(params, source);
  const std::size_t rank_count = source.definitions().ranks.size();
  const auto first_rank = static_cast<uint32_t>(params.count("first_rank") == 0U ? 0 : size_param(params, "first_rank", rank_count));
  const auto ranks = static_cast<uint32_t>(count_param(params, "ranks", 4096, 1, 4096));
  const std::size_t points = count_param(params, "points", 1000, 2, 16384);
  return resource_samples(source, t0, t1, first_rank, ranks, points);
}

// GET /api/source?callpath=ROW: the lines of the call path's region (a row of the page's call tree).
json ViewerApi::source(const Params& params) {
  std::size_t row = size_param(params, "callpath", callpath_rows());
  const bool theirs = other_ && row >= report_->callpath_count();
  const ReportData& data = theirs ? *other_ : *report_;
  if (theirs) row = comparison_.union_to_b.at(row);
  const auto& h = data.header();
  const auto region_row = static_cast<std::size_t>(h.callpaths.at(row).region);
  if (region_row >= h.regions.size()) throw InputError("call path " + std::to_string(row) + " names no region");
  // Relative file names: where the experiment was (usually where the program was built and run).
  std::vector<std::string> directories;
  if (!h.attributes.experiment.empty()) {
    directories.push_back(h.attributes.experiment);
    directories.push_back(std::filesystem::path(h.attributes.experiment).parent_path().string());
  }
  return source_lines(h.regions[region_row], directories);
}

// GET /api/callstack?rank=&t0=&t1=&width=[&run=]
json ViewerApi::callstack(const Params& params) {
  TimelineSource& source = trace(trace_run(params));
  const auto [t0, t1] = trace_window(params, source);
  const auto rank = static_cast<uint32_t>(size_param(params, "rank", source.definitions().ranks.size()));
  const auto width = static_cast<uint32_t>(count_param(params, "width", 1000, 1, 16384));
  return call_stack(source, rank, t0, t1, width);
}

// GET /api/topology[?run=]: the run's Cartesian process grid, read once.
json ViewerApi::topology(const Params& params) {
  const std::size_t run = trace_run(params);
  const std::lock_guard lock(topology_mutex_);
  if (!topologies_[run]) topologies_[run] = read_cartesian_topology(experiments_[run]);
  return *topologies_[run];
}

json ViewerApi::worst_instance(const Params& params) {
  TimelineSource& source = trace(trace_run(params));
  const auto& defs = source.definitions();
  const auto rank = static_cast<uint32_t>(size_param(params, "rank", defs.ranks.size()));
  const std::size_t row = size_param(params, "callpath", callpath_rows());
  const auto found = source.worst_instance(rank, trace_chain(defs, callpath_chain(row)));
  if (!found) return {{"found", false}};
  return {{"found", true}, {"begin", found->begin}, {"end", found->end}, {"rank", rank}};
}

}  // namespace orrery::viewer

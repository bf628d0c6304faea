// The analysis's output steps (analysis_run.h): the merge on rank 0, the
// report written metric by metric, and the closing summary.

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <filesystem>
#include <functional>
#include <limits>

#include "analysis_run.h"
#include "orrery/analyzer/clock_report.h"
#include "orrery/analyzer/merge.h"
#include "large_cube.h"
#include "orrery/analyzer/summary_critical_path.h"
#include "orrery/analyzer/summary_findings.h"
#include "orrery/analyzer/what_if_phase.h"
#include "orrery/report/atomic_file.h"
#include "orrery/report/hdf5_io.h"
#include "vmpi.h"

namespace orrery::analyzer {
namespace {

std::string iso8601_now() {
  const std::time_t now = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buffer;
}

/// The values of ranks without a trace are not zero but unknown: NaN.
void mark_absent(report::MetricValues& values, std::size_t locations,
                 const std::vector<uint32_t>& lost) {
  if (lost.empty() || locations == 0) return;
  for (std::size_t c = 0; c < values.size() / locations; ++c) {
    for (const uint32_t l : lost) {
      if (l < locations) values[c * locations + l] = std::numeric_limits<double>::quiet_NaN();
    }
  }
}

}  // namespace

/// Rank 0's report file, written under a temporary name and renamed when
/// complete: a failed or interrupted write (a full disk) never leaves a half
/// report under its name. A failure is kept until every metric went by (the
/// other ranks are in the gathers) and then agreed on (rethrow_failure).
class ReportOutput {
 public:
  ReportOutput(const std::string& path, const report::CubeHeader& header,
               report::CubeLayout layout) {
    attempt([&] {
      file_.emplace(path);
      writer_ = std::make_unique<report::CubeWriter>(file_->temporary(), header, layout);
    });
  }
  void write_metric(std::size_t metric, const report::MetricValues& values) {
    attempt([&] { writer_->write_metric(metric, values); });
  }
  void write_block(std::size_t metric, const ValueBlock& block) {
    attempt([&] { writer_->write_columns(metric, block.first, block.count, block.values.data()); });
  }
  void finish_metric(std::size_t metric) {
    attempt([&] { writer_->finish_metric(metric); });
  }
  void close() {
    attempt([&] { writer_->close(); });
  }
  /// A table beside the cube (`write(temporary path)`), after close().
  void add(const std::function<void(const std::string&)>& write) {
    attempt([&] { write(file_->temporary()); });
  }
  void commit() {
    attempt([&] { file_->commit(); });
    writer_.reset();
    file_.reset();  // removes the temporary file unless it was committed
  }
  [[nodiscard]] std::exception_ptr failure() const { return failure_; }

 private:
  void attempt(const std::function<void()>& step) {
    if (failure_) return;
    try {
      try {
        step();
      } catch (const InputError& failure) {
        if (file_) file_->fail(failure.what());  // names the report, and a full disk
        throw;
      }
    } catch (...) {
      failure_ = std::current_exception();
    }
  }

  std::optional<report::AtomicFile> file_;
  std::unique_ptr<report::CubeWriter> writer_;
  std::exception_ptr failure_;
};

namespace {

/// The merge's memory knobs; the environment sets them for tests:
/// ORRERY_MERGE_BLOCK_VALUES (values rank 0 receives per block of ranks) and
/// ORRERY_MERGE_MEMORY_VALUES (from which size of one metric the cube is large).
std::size_t merge_knob(const char* name, std::size_t otherwise) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return otherwise;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  return end != nullptr && *end == '\0' && value > 0 ? static_cast<std::size_t>(value) : otherwise;
}

}  // namespace

void AnalysisRun::merge_and_write() {
  progress_("merging call trees and severities");
  std::optional<CubeMerge> merge;
  const std::size_t block_values = merge_knob("ORRERY_MERGE_BLOCK_VALUES", CubeMerge::kBlockValues);
  const std::size_t memory_values = merge_knob("ORRERY_MERGE_MEMORY_VALUES", kLargeCubeValues);
  phases_.run([&] { merge.emplace(tree_, registry_, definitions_, world_, block_values); });
  const LocalValues mine{severities_.get(), &threads_.slots, BalanceMetrics::time_rows(registry_)};
  if (rank_ == 0) {
    header_ = merge->header();
    for (const uint32_t l : lost_) {
      if (l < header_.locations.size()) header_.locations[l].name += " (no trace)";
    }
    header_.attributes = report::CubeAttributes{"orrery-analyze " ORRERY_VERSION,
                                                options_.experiment, iso8601_now()};
  }
  if (options_.write_report) progress_("writing " + result_.report_path);
  digest_ = std::make_unique<SummaryDigest>(header_);
  std::optional<ReportOutput> output;
  if (rank_ != 0) {
    merge->serve(mine);  // until rank 0 has every metric
  } else {
    const bool large = header_.callpaths.size() * header_.locations.size() > memory_values;
    if (options_.write_report) {
      output.emplace(result_.report_path, header_,
                     large ? report::large_cube_layout(header_.callpaths.size(), memory_values)
                           : report::CubeLayout{});
    }
    if (options_.keep_cube) result_.cube.header = header_;
    if (large) {
      write_large_cube(*merge, mine, output ? &*output : nullptr);
    } else {
      write_ordinary_cube(*merge, mine, output ? &*output : nullptr);
    }
    merge->done();
  }
  if (output) output->close();
  const std::vector<ClockCorrection> corrections = gather_clock_corrections(clock_correction_, world_);
  if (rank_ == 0) {
    result_.clock = clock_record(describe_clock(options_.experiment), corrections, seconds_per_tick());
    result_.efficiencies = run_efficiencies(header_, digest_->by_location(), result_);
  }
  if (output) {
    output->add([&](const std::string& path) { report::write_clock_record(path, result_.clock); });
    output->add([&](const std::string& path) { report::write_function_groups(path, result_.groups); });
    output->add([&](const std::string& path) {
      report::write_efficiency_record(path, result_.efficiencies, prediction_of(options_, result_));
    });
    output->commit();
  }
  const std::exception_ptr failure = output ? output->failure() : nullptr;
  phases_.run([&] {
    if (failure) std::rethrow_exception(failure);
  });
}

void AnalysisRun::write_ordinary_cube(const CubeMerge& merge, const LocalValues& mine,
                                      ReportOutput* output) {
  // One metric at a time, gathered in blocks of ranks: rank 0 holds one
  // metric of the cube (and BalanceMetrics' four) unless asked to keep it.
  balance_.emplace(header_, registry_);
  const std::size_t locations = header_.locations.size();
  const std::vector<std::pair<int, int>> blocks = merge.rank_blocks();
  for (std::size_t m = 0; m < severities_->metrics(); ++m) {
    report::MetricValues values(header_.callpaths.size() * locations, 0.0);
    for (const auto& ranks : blocks) {
      const ValueBlock block = merge.fetch(ranks, {static_cast<int32_t>(m)}, mine);
      for (std::size_t c = 0; c < block.callpaths; ++c) {
        std::copy_n(block.values.data() + c * block.count, block.count,
                    values.data() + c * locations + block.first);
      }
    }
    mark_absent(values, locations, lost_);
    balance_->take(m, values);
    digest_->add(m, values);
    if (output != nullptr) output->write_metric(m, values);
    if (options_.keep_cube) result_.cube.values.push_back(std::move(values));
  }
  result_.groups = balance_->groups(group_rules_);
  critical_entries_ = balance_->path_entries(3);
}

void AnalysisRun::write_large_cube(const CubeMerge& merge, const LocalValues& mine,
                                   ReportOutput* output) {
  LargeCubeMerge large(merge, header_, registry_, mine, lost_);
  const std::size_t locations = header_.locations.size();
  for (std::size_t m = 0; m < severities_->metrics(); ++m) {
    report::MetricValues kept;
    if (options_.keep_cube) kept.assign(header_.callpaths.size() * locations, 0.0);
    large.metric(m, [&](const ValueBlock& block) {
      digest_->add_block(m, block.values.data(), block.first, block.count);
      if (output != nullptr) output->write_block(m, block);
      for (std::size_t c = 0; c < block.callpaths && !kept.empty(); ++c) {
        std::copy_n(block.values.data() + c * block.count, block.count,
                    kept.data() + c * locations + block.first);
      }
    });
    if (output != nullptr) output->finish_metric(m);
    if (options_.keep_cube) result_.cube.values.push_back(std::move(kept));
  }
  result_.groups = large.groups(group_rules_);
  critical_entries_ = large.path_entries(3);
}

void AnalysisRun::print_closing_summary() {
  if (rank_ != 0 || options_.progress == nullptr) return;
  std::ostream& out = *options_.progress;
  if (incomplete_) out << "\n" << describe_endings(result_.rank_endings) << "\n";
  if (!lost_.empty()) out << describe_lost_ranks(lost_) << "\n";
  if (const std::string gaps = describe_thread_gaps(options_.experiment, untraced_thread_calls_); !gaps.empty()) {
    out << "\n" << gaps;
  }
  out << "\n";
  print_clock_summary(out, result_.clock, options_.correct_clock_violations);
  if (result_.scratch_ranks > 0) {
    out << "Memory limit: " << options_.memory_limit / 1024 << " KiB of tables per traced rank; "
        << result_.scratch_bytes_all / 1024 << " KiB of the traces of " << result_.scratch_ranks
        << (result_.scratch_ranks == 1 ? " rank" : " ranks")
        << " kept in scratch files (streamed through the page cache)\n";
  }
  print_summary(out, header_, *digest_, registry_, result_.statistics,
                options_.write_report ? result_.report_path : std::string("(not written)"));
  print_efficiencies(out, options_, result_);
  print_findings(out, options_.write_report ? result_.report_path : std::string(), result_.delay,
                 options_.delay_analysis);
  if (options_.critical_path) {
    print_critical_path(out, header_, result_.critical_path, seconds_per_tick(),
                        critical_entries_);
  }
}

AnalysisRun::AnalysisRun(const AnalysisOptions& options, MPI_Comm world)
    : options_(options), world_(world), progress_(nullptr), phases_(world) {
  vmpi::Comm_rank(world_, &rank_);
  vmpi::Comm_size(world_, &size_);
  progress_ = Progress(rank_ == 0 && !options_.quiet ? options_.progress : nullptr);
  result_.report_path =
      options_.output.empty() ? default_report_path(options_.experiment) : options_.output;
}

std::string AnalysisRun::scratch_directory() const {
  const auto directory = std::filesystem::path(result_.report_path).parent_path();
  return directory.empty() ? std::string(".") : directory.string();
}

void AnalysisRun::count_scratch_memory() {
  if (!chunk_budget_) return;
  result_.scratch_bytes = chunk_budget_->in_scratch_file();
  const uint64_t mine[2] = {result_.scratch_bytes, result_.scratch_bytes > 0 ? 1U : 0U};
  uint64_t sums[2] = {0, 0};
  vmpi::Reduce(mine, sums, 2, MPI_UINT64_T, MPI_SUM, 0, world_);
  result_.scratch_bytes_all = sums[0];
  result_.scratch_ranks = static_cast<uint32_t>(sums[1]);
}

AnalysisResult AnalysisRun::run() {
  read_grouping_file();
  read_definitions_of_run();
  if (result_.traced_ranks != 0) return std::move(result_);  // analyze_in_blocks' turn
  if (options_.memory_limit > 0) {
    chunk_budget_ = std::make_unique<ChunkBudget>(options_.memory_limit, scratch_directory());
  }
  ChunkBudget::Scope budget(chunk_budget_.get());
  read_trace();
  complete_definitions();
  prepare_replay();
  correct_clocks();
  replay_wait_states();
  find_root_causes();
  follow_critical_path();
  analyze_threads();
  count_scratch_memory();
  merge_and_write();
  print_closing_summary();
  return std::move(result_);
}

}  // namespace orrery::analyzer

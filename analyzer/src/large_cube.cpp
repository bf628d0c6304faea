// Rank 0's merge of a large cube, block by block (large_cube.h).

#include "large_cube.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace orrery::analyzer {
namespace {

int32_t row_of(const patterns::PatternRegistry& registry, const char* name) {
  return static_cast<int32_t>(registry.row(name));
}

}  // namespace

LargeCubeMerge::LargeCubeMerge(const CubeMerge& merge, const report::CubeHeader& header,
                               const patterns::PatternRegistry& registry, const LocalValues& mine,
                               const std::vector<uint32_t>& lost)
    : merge_(merge),
      header_(header),
      mine_(mine),
      blocks_(merge.rank_blocks()),
      absent_(header.locations.size(), false),
      execution_(row_of(registry, "execution")),
      visits_(row_of(registry, "visits")),
      critical_path_(row_of(registry, "critical_path")),
      critical_imbalance_(row_of(registry, "critical_path_imbalance")),
      impact_(row_of(registry, "performance_impact")),
      imbalance_(row_of(registry, "imbalance")),
      imbalance_parts_{row_of(registry, "imbalance_above"), row_of(registry, "imbalance_above_single"),
                       row_of(registry, "imbalance_below"), row_of(registry, "imbalance_below_bypass"),
                       row_of(registry, "imbalance_below_singularity")} {
  for (const uint32_t l : lost) {
    if (l < absent_.size()) absent_[l] = true;
  }
  for (const report::Location& location : header.locations) ranks_.push_back(location.thread == 0);
}

ValueBlock LargeCubeMerge::fetch(std::size_t b, const std::vector<int32_t>& asked) const {
  ValueBlock block = merge_.fetch(blocks_[b], asked, mine_);
  for (std::size_t l = 0; l < block.count; ++l) {
    if (!absent_[block.first + l]) continue;
    for (std::size_t k = 0; k < asked.size(); ++k) {
      for (std::size_t c = 0; c < block.callpaths; ++c) {
        block.of(k)[c * block.count + l] = std::numeric_limits<double>::quiet_NaN();
      }
    }
  }
  return block;
}

void LargeCubeMerge::prepare_critical_path() {
  if (!critical_totals_.empty() || header_.callpaths.empty()) return;
  const std::size_t callpaths = header_.callpaths.size();
  critical_totals_.assign(callpaths, {});
  entries_.assign(callpaths, {});
  most_.assign(callpaths, 0.0);
  for (std::size_t c = 0; c < callpaths; ++c) entries_[c].callpath = c;
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    const ValueBlock block = fetch(b, {critical_path_, CubeMerge::kTimeSum});
    for (std::size_t c = 0; c < callpaths; ++c) {
      for (std::size_t l = 0; l < block.count; ++l) {
        const double critical = block.of(0)[c * block.count + l];
        report::add_critical_location(critical_totals_[c], critical, block.of(1)[c * block.count + l],
                                      ranks_[block.first + l]);
        if (!(critical > 0)) continue;
        entries_[c].seconds += critical;
        if (critical > most_[c]) {
          most_[c] = critical;
          entries_[c].location = block.first + l;
        }
      }
    }
  }
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    const ValueBlock block = fetch(b, {CubeMerge::kTimeSum});
    for (std::size_t c = 0; c < callpaths; ++c) {
      for (std::size_t l = 0; l < block.count; ++l) {
        report::add_impact_weight(critical_totals_[c], block.of(0)[c * block.count + l],
                                  ranks_[block.first + l]);
      }
    }
  }
}

void LargeCubeMerge::prepare_imbalance() {
  if (!imbalance_totals_.empty() || header_.callpaths.empty()) return;
  const std::size_t callpaths = header_.callpaths.size();
  imbalance_totals_.assign(callpaths, {});
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    const ValueBlock block = fetch(b, {execution_, visits_});
    for (std::size_t c = 0; c < callpaths; ++c) {
      for (std::size_t l = 0; l < block.count; ++l) {
        report::add_imbalance_location(imbalance_totals_[c], block.of(0)[c * block.count + l],
                                       block.of(1)[c * block.count + l]);
      }
    }
  }
}

ValueBlock LargeCubeMerge::critical_path_block(std::size_t b, std::size_t part) {
  prepare_critical_path();
  ValueBlock in = fetch(b, {critical_path_, CubeMerge::kTimeSum});
  ValueBlock out{in.first, in.count, in.callpaths, std::vector<double>(in.callpaths * in.count)};
  for (std::size_t c = 0; c < in.callpaths; ++c) {
    for (std::size_t l = 0; l < in.count; ++l) {
      const std::size_t i = c * in.count + l;
      const double value =
          report::critical_path_at(critical_totals_[c], in.of(0)[i], in.of(1)[i], ranks_[in.first + l])[part];
      out.values[i] = value;
      if (part == 1) entries_[c].above_mean += value;
    }
  }
  return out;
}

ValueBlock LargeCubeMerge::imbalance_block(std::size_t b, std::size_t part) {
  prepare_imbalance();
  ValueBlock in = fetch(b, {execution_, visits_});
  ValueBlock out{in.first, in.count, in.callpaths, std::vector<double>(in.callpaths * in.count)};
  for (std::size_t i = 0; i < out.values.size(); ++i) {
    out.values[i] = report::imbalance_at(imbalance_totals_[i / in.count], in.of(0)[i], in.of(1)[i])[part];
  }
  return out;
}

void LargeCubeMerge::metric(std::size_t metric, const std::function<void(const ValueBlock&)>& take) {
  const auto row = static_cast<int32_t>(metric);
  const auto part = std::find(imbalance_parts_.begin(), imbalance_parts_.end(), row);
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    if (row == critical_path_ || row == critical_imbalance_ || row == impact_) {
      take(critical_path_block(b, row == critical_path_ ? 0 : row == critical_imbalance_ ? 1 : 2));
    } else if (part != imbalance_parts_.end()) {
      take(imbalance_block(b, static_cast<std::size_t>(part - imbalance_parts_.begin())));
    } else if (row == imbalance_) {
      // An aggregate: its parts hold the values (BalanceMetrics::take), absent locations too.
      ValueBlock zeros;
      std::tie(zeros.first, zeros.count) = merge_.block_locations(blocks_[b]);
      zeros.callpaths = header_.callpaths.size();
      zeros.values.assign(zeros.callpaths * zeros.count, 0.0);
      take(zeros);
    } else {
      take(fetch(b, {row}));
    }
  }
}

report::FunctionGroups LargeCubeMerge::groups(const std::vector<report::GroupRule>& rules) {
  report::FunctionGroupBuilder builder(header_, rules);
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    const ValueBlock block = fetch(b, {CubeMerge::kTimeSum});
    builder.add_totals(block.of(0), block.first, block.count);
  }
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    const ValueBlock block = fetch(b, {CubeMerge::kTimeSum});
    builder.add_values(block.of(0), block.first, block.count);
  }
  return builder.finish();
}

std::vector<BalanceMetrics::PathEntry> LargeCubeMerge::path_entries(std::size_t top) const {
  std::vector<BalanceMetrics::PathEntry> entries;
  for (const BalanceMetrics::PathEntry& entry : entries_) {
    if (entry.seconds > 0) entries.push_back(entry);
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.seconds > b.seconds; });
  if (entries.size() > top) entries.resize(top);
  return entries;
}

}  // namespace orrery::analyzer

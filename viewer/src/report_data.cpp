#include "report_data.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <thread>
#include <utility>

#include "orrery/error.h"
#include "orrery/report/trees.h"

namespace orrery::viewer {

ReportData::ReportData(std::string label, report::CubeHeader header, Loader loader)
    : label_(std::move(label)), header_(std::move(header)), loader_(std::move(loader)) {
  slots_.reserve(header_.metrics.size());
  metric_children_.resize(header_.metrics.size());
  for (std::size_t m = 0; m < header_.metrics.size(); ++m) {
    slots_.push_back(std::make_unique<Slot>());
    const int32_t parent = header_.metrics[m].parent;
    if (parent >= 0 && static_cast<std::size_t>(parent) < m) {
      metric_children_[static_cast<std::size_t>(parent)].push_back(m);
    }
  }
  for (std::size_t m = 0; m < header_.metrics.size(); ++m) {
    const int32_t parent = header_.metrics[m].parent;
    if (parent >= 0 && static_cast<std::size_t>(parent) < m) continue;
    std::vector<std::size_t> stack{m};
    while (!stack.empty()) {
      const std::size_t row = stack.back();
      stack.pop_back();
      tree_order_.push_back(row);
      const auto& children = metric_children_[row];
      stack.insert(stack.end(), children.rbegin(), children.rend());
    }
  }
}

std::shared_ptr<const MetricSums> ReportData::metric(std::size_t metric_row) {
  if (auto ready = metric_if_ready(metric_row)) return ready;
  // Tell the background preload to step aside after its current metric.
  waiting_requests_.fetch_add(1);
  struct Done {
    std::atomic<int>& count;
    ~Done() { count.fetch_sub(1); }
  } done{waiting_requests_};
  return load(metric_row);
}

std::shared_ptr<const MetricSums> ReportData::metric_if_ready(std::size_t metric_row) {
  if (metric_row >= slots_.size()) {
    throw UsageError("no metric row " + std::to_string(metric_row));
  }
  Slot& slot = *slots_[metric_row];
  const std::lock_guard lock(slot.pointer_mutex);
  if (slot.sums) slot.last_use = ++clock_;
  return slot.sums;
}

std::shared_ptr<const MetricSums> ReportData::load(std::size_t metric_row) {
  Slot& slot = *slots_[metric_row];
  const std::lock_guard lock(slot.mutex);
  if (auto ready = metric_if_ready(metric_row)) return ready;
  auto sums = compute(metric_row);
  const std::size_t bytes = sizeof(double) * (sums->exclusive.size() + sums->inclusive.size() +
                                              sums->exclusive_total.size() + sums->inclusive_total.size());
  const std::lock_guard account(cache_mutex_);
  {
    const std::lock_guard publish(slot.pointer_mutex);
    slot.sums = sums;
    slot.total = sums->total;
    slot.bytes = bytes;
    slot.last_use = ++clock_;
  }
  cached_bytes_ += bytes;
  evict(metric_row);
  return sums;
}

// Requests still using an evicted metric keep their shared_ptr; the memory
// goes when the last of them finishes.
void ReportData::evict(std::size_t keep) {
  while (cached_bytes_ > cache_budget_) {
    std::size_t oldest = slots_.size();
    std::uint64_t oldest_use = std::numeric_limits<std::uint64_t>::max();
    for (std::size_t m = 0; m < slots_.size(); ++m) {
      const std::lock_guard lock(slots_[m]->pointer_mutex);
      if (m != keep && slots_[m]->sums && slots_[m]->last_use < oldest_use) {
        oldest = m;
        oldest_use = slots_[m]->last_use;
      }
    }
    if (oldest == slots_.size()) return;
    const std::lock_guard lock(slots_[oldest]->pointer_mutex);
    slots_[oldest]->sums.reset();
    cached_bytes_ -= slots_[oldest]->bytes;
    slots_[oldest]->bytes = 0;
  }
}

std::size_t ReportData::cached_bytes() {
  const std::lock_guard lock(cache_mutex_);
  return cached_bytes_;
}

void ReportData::preload(const std::atomic<bool>& cancel) {
  for (const std::size_t m : tree_order_) {
    while (waiting_requests_.load() > 0 && !cancel) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (cancel) return;
    {
      const std::lock_guard lock(slots_[m]->pointer_mutex);
      if (!std::isnan(slots_[m]->total)) continue;  // already read (maybe evicted since)
    }
    try {
      (void)load(m);
    } catch (const std::exception&) {
      // Remembered, so that metric_totals_so_far() reports the error instead of waiting.
      const std::lock_guard lock(slots_[m]->pointer_mutex);
      slots_[m]->preload_failed = true;
    }
  }
}

std::shared_ptr<const MetricSums> ReportData::compute(std::size_t metric_row) {
  auto sums = std::make_shared<MetricSums>();
  {
    const std::lock_guard lock(loader_mutex_);
    sums->exclusive = loader_(metric_row);
  }
  const std::size_t n_cp = callpath_count();
  const std::size_t n_loc = location_count();
  if (sums->exclusive.size() != n_cp * n_loc) {
    throw InputError(label_ + ": metric '" + header_.metrics[metric_row].name + "' has " +
                     std::to_string(sums->exclusive.size()) + " values, expected " +
                     std::to_string(n_cp * n_loc));
  }
  sums->inclusive = sums->exclusive;
  report::make_callpath_inclusive(header_, sums->inclusive);
  sums->exclusive_total.assign(n_cp, 0.0);
  sums->inclusive_total.assign(n_cp, 0.0);
  for (std::size_t c = 0; c < n_cp; ++c) {
    double exclusive = 0.0;
    double inclusive = 0.0;
    for (std::size_t l = 0; l < n_loc; ++l) {
      // NaN: a rank without trace (its values are absent), not part of a total.
      if (!std::isnan(sums->exclusive[c * n_loc + l])) exclusive += sums->exclusive[c * n_loc + l];
      if (!std::isnan(sums->inclusive[c * n_loc + l])) inclusive += sums->inclusive[c * n_loc + l];
    }
    sums->exclusive_total[c] = exclusive;
    sums->inclusive_total[c] = inclusive;
    sums->total += exclusive;
  }
  return sums;
}

std::vector<std::size_t> ReportData::metric_rows(TreeSelection metric) const {
  if (metric.row >= header_.metrics.size()) {
    throw UsageError("no metric row " + std::to_string(metric.row));
  }
  std::vector<std::size_t> rows{metric.row};
  if (!metric.inclusive) return rows;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& children = metric_children_[rows[i]];
    rows.insert(rows.end(), children.begin(), children.end());
  }
  return rows;
}

std::vector<double> ReportData::metric_totals() {
  std::vector<double> totals(header_.metrics.size(), 0.0);
  for (std::size_t m = 0; m < totals.size(); ++m) totals[m] = metric(m)->total;
  return totals;
}

std::vector<double> ReportData::metric_totals_so_far() {
  std::vector<double> totals(header_.metrics.size(), std::numeric_limits<double>::quiet_NaN());
  for (std::size_t m = 0; m < totals.size(); ++m) {
    bool failed = false;
    {
      const std::lock_guard lock(slots_[m]->pointer_mutex);
      totals[m] = slots_[m]->total;  // known once computed, even if evicted since
      failed = slots_[m]->preload_failed;
    }
    if (!std::isnan(totals[m])) continue;
    if (failed) totals[m] = metric(m)->total;  // retries; throws the reader's error
  }
  return totals;
}

ReportData::CallpathValues ReportData::callpath_values(TreeSelection metric_selection) {
  CallpathValues values;
  values.exclusive.assign(callpath_count(), 0.0);
  values.inclusive.assign(callpath_count(), 0.0);
  for (const std::size_t m : metric_rows(metric_selection)) {
    const auto sums = metric(m);
    for (std::size_t c = 0; c < values.exclusive.size(); ++c) {
      values.exclusive[c] += sums->exclusive_total[c];
      values.inclusive[c] += sums->inclusive_total[c];
    }
  }
  return values;
}

std::vector<double> ReportData::location_values(TreeSelection metric_selection,
                                                TreeSelection callpath) {
  if (callpath.row == kAllCallpaths) {
    std::vector<double> values(location_count(), 0.0);
    if (!callpath.inclusive) return values;
    for (std::size_t c = 0; c < callpath_count(); ++c) {
      if (header_.callpaths[c].parent >= 0) continue;
      const auto root = location_values(metric_selection, {c, true});
      for (std::size_t l = 0; l < values.size(); ++l) values[l] += root[l];
    }
    return values;
  }
  if (callpath.row >= callpath_count()) {
    throw UsageError("no call path row " + std::to_string(callpath.row));
  }
  const std::size_t n_loc = location_count();
  std::vector<double> values(n_loc, 0.0);
  for (const std::size_t m : metric_rows(metric_selection)) {
    const auto sums = metric(m);
    const auto& matrix = callpath.inclusive ? sums->inclusive : sums->exclusive;
    const double* row = matrix.data() + callpath.row * n_loc;
    for (std::size_t l = 0; l < n_loc; ++l) values[l] += row[l];
  }
  return values;
}

std::vector<std::vector<double>> ReportData::callpath_rows(TreeSelection metric_selection,
                                                           const std::vector<std::size_t>& rows) {
  const std::size_t n_loc = location_count();
  std::vector<std::vector<double>> result(rows.size(), std::vector<double>(n_loc, 0.0));
  for (const std::size_t m : metric_rows(metric_selection)) {
    const auto sums = metric(m);
    for (std::size_t k = 0; k < rows.size(); ++k) {
      if (rows[k] >= callpath_count()) {
        throw UsageError("no call path row " + std::to_string(rows[k]));
      }
      const double* row = sums->exclusive.data() + rows[k] * n_loc;
      for (std::size_t l = 0; l < n_loc; ++l) result[k][l] += row[l];
    }
  }
  return result;
}

}  // namespace orrery::viewer

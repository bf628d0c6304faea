#include "orrery/report/run_totals.h"

#include "orrery/report/trees.h"

namespace orrery::report {

RunTotals run_totals(const std::vector<const CubeReader*>& readers, const CubeUnion& united,
                     bool per_process) {
  RunTotals totals(readers.size());
  const std::size_t callpaths = united.header.callpaths.size();
  for (std::size_t i = 0; i < readers.size(); ++i) {
    const CubeHeader& header = readers[i]->header();
    const std::size_t width = header.locations.size();
    const double scale = per_process && width > 0 ? 1.0 / static_cast<double>(width) : 1.0;
    totals[i].assign(united.header.metrics.size(), std::vector<double>(callpaths, 0.0));
    for (std::size_t m = 0; m < header.metrics.size(); ++m) {
      const MetricValues values = readers[i]->read_metric(m);
      auto& target = totals[i][united.inputs[i].metrics[m]];
      for (std::size_t c = 0; c < header.callpaths.size(); ++c) {
        double sum = 0;
        for (std::size_t l = 0; l < width; ++l) {
          sum += values[c * width + l];
        }
        target[united.inputs[i].callpaths[c]] += sum * scale;
      }
    }
  }
  return totals;
}

std::vector<double> metric_values(const CubeUnion& united,
                                  const std::vector<std::vector<double>>& run, std::size_t m,
                                  const ValueView& view) {
  const CubeHeader& header = united.header;
  const auto metrics =
      view.exclusive_metric ? std::vector<std::size_t>{m} : metric_subtree(header, m);
  std::vector<double> values(header.callpaths.size(), 0.0);
  for (const std::size_t sub : metrics) {
    for (std::size_t c = 0; c < values.size(); ++c) {
      values[c] += run[sub][c];
    }
  }
  if (view.inclusive) {
    for (std::size_t c = values.size(); c-- > 0;) {
      const int32_t parent = header.callpaths[c].parent;
      if (parent >= 0) {
        values[static_cast<std::size_t>(parent)] += values[c];
      }
    }
  }
  return values;
}

}  // namespace orrery::report

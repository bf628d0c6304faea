#pragma once
// The POP efficiencies of a run (docs/design.md §5 `/efficiency`) and the what-if
// attributes (`what_if`, `predicted_runtime`). Optional in a report: readers
// accept their absence.
//   load_balance              mean over processes of useful computation ÷ its maximum
//   communication_efficiency  max useful computation ÷ run time
//   serialisation_efficiency  max useful computation ÷ run time on an ideal network
//   transfer_efficiency       ideal-network run time ÷ run time
//   parallel_efficiency       load_balance × communication_efficiency
// Useful computation = time outside MPI, the measurement and the OpenMP runtime.
// Across runs of different sizes (orrery scaling):
//   computation_scalability   total useful computation of the reference run ÷ this run's
//   global_efficiency         parallel_efficiency × computation_scalability

#include <optional>
#include <string>
#include <vector>

#include "orrery/report/cube.h"

namespace orrery::report {

/// One row of `/efficiency`.
struct Efficiency {
  std::string name;
  double value = 0;
  std::string description;
};

/// The efficiencies from each process's useful computation (seconds; NaN
/// entries are skipped), the run time and, if known, the run time on an ideal
/// network (without it, no serialisation/transfer rows). Empty if there is no
/// computation or no run time.
[[nodiscard]] std::vector<Efficiency> pop_efficiencies(const std::vector<double>& useful,
                                                       double runtime,
                                                       std::optional<double> ideal_runtime);

/// Per process (locations of thread 0), its useful computation in seconds:
/// `time` minus `mpi`, `overhead` and `omp`, each with its sub-metrics.
/// `by_location[m]` is metric row m summed over call paths, per location.
[[nodiscard]] std::vector<double> useful_computation(
    const CubeHeader& header, const std::vector<std::vector<double>>& by_location);

/// The value of the efficiency `name`; nullopt if absent.
[[nodiscard]] std::optional<double> find_efficiency(const std::vector<Efficiency>& rows,
                                                    const std::string& name);

/// "Efficiency (POP)" lines for terminal tools, one per row.
[[nodiscard]] std::string efficiency_text(const std::vector<Efficiency>& rows);

/// A what-if report's model and predicted run time (seconds).
struct Prediction {
  std::string what_if;
  double predicted_runtime = 0;
};

/// Adds `/efficiency` (if any rows) and the prediction (if any) to a written
/// report. Throws InputError.
void write_efficiency_record(const std::string& path, const std::vector<Efficiency>& rows,
                             const std::optional<Prediction>& prediction);
/// The rows of `/efficiency`; empty if the report has none.
[[nodiscard]] std::vector<Efficiency> read_efficiencies(const std::string& path);
/// The what-if attributes; nullopt on an ordinary report.
[[nodiscard]] std::optional<Prediction> read_prediction(const std::string& path);

}  // namespace orrery::report

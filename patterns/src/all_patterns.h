#pragma once
// Factories of the pattern classes; the registry lists them once, in order.

#include <functional>
#include <memory>

#include "orrery/patterns/pattern.h"

namespace orrery::patterns {

std::unique_ptr<Pattern> make_category(MetricInfo info);
std::unique_ptr<Pattern> make_time();
std::unique_ptr<Pattern> make_visits();
std::unique_ptr<Pattern> make_late_sender();
std::unique_ptr<Pattern> make_late_sender_wrong_order();
std::unique_ptr<Pattern> make_late_sender_count();
std::unique_ptr<Pattern> make_late_receiver();
std::unique_ptr<Pattern> make_late_receiver_count();
std::unique_ptr<Pattern> make_wait_at_barrier();
std::unique_ptr<Pattern> make_barrier_completion();
std::unique_ptr<Pattern> make_early_reduce();
std::unique_ptr<Pattern> make_early_scan();
std::unique_ptr<Pattern> make_late_broadcast();
std::unique_ptr<Pattern> make_wait_at_nxn();
std::unique_ptr<Pattern> make_nxn_completion();
std::unique_ptr<Pattern> make_wait_at_neighbor();
std::unique_ptr<Pattern> make_init_completion();
std::unique_ptr<Pattern> make_finalize_wait();
std::unique_ptr<Pattern> make_bytes_sent();
std::unique_ptr<Pattern> make_bytes_received();
std::unique_ptr<Pattern> make_sends();
std::unique_ptr<Pattern> make_receives();
std::unique_ptr<Pattern> make_bytes_coll_out();
std::unique_ptr<Pattern> make_bytes_coll_in();
std::unique_ptr<Pattern> make_collectives();
/// The delay-cost metrics and wait-state classes (delay_costs.cpp), in order.
void add_delay_metrics(const std::function<void(std::unique_ptr<Pattern>)>& add);

/// The critical-path metrics (critical_path.cpp) and the load-imbalance
/// heuristic (imbalance.cpp), in order.
void add_critical_path_metrics(const std::function<void(std::unique_ptr<Pattern>)>& add);
void add_imbalance_metrics(const std::function<void(std::unique_ptr<Pattern>)>& add);

std::unique_ptr<Pattern> make_omp_barrier_wait();
std::unique_ptr<Pattern> make_omp_idle_threads();

}  // namespace orrery::patterns

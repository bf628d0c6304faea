#pragma once
// Reading one rank's trace with Orrery's OTF2 decoder and with libotf2
// (ORRERY_TRACE_DECODER=otf2) and comparing the LocalTraces field by field
// (trace_decoder_test.cpp, trace_decoder_fallback_test.cpp).

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "orrery/error.h"
#include "orrery/trace/trace_reader.h"
#include "otf2_fast_path.h"

namespace orrery::testing {

/// An empty scratch directory for one test's archive.
inline std::string fresh_dir(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("orrery-decoder-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

/// Sets ORRERY_TRACE_DECODER for its lifetime (nullptr: unset).
class ScopedDecoder {
 public:
  explicit ScopedDecoder(const char* choice) {
    if (choice != nullptr) {
      ::setenv("ORRERY_TRACE_DECODER", choice, 1);
    } else {
      ::unsetenv("ORRERY_TRACE_DECODER");
    }
  }
  ~ScopedDecoder() { ::unsetenv("ORRERY_TRACE_DECODER"); }
  ScopedDecoder(const ScopedDecoder&) = delete;
  ScopedDecoder& operator=(const ScopedDecoder&) = delete;
};

/// Rank `rank` of `dir` read with `decoder` ("otf2": libotf2; nullptr: Orrery's where it qualifies).
inline analyzer::LocalTrace read_with(const std::string& dir, const char* decoder, uint32_t rank = 0,
                                      const analyzer::IdMapping* mapping = nullptr) {
  ScopedDecoder scoped(decoder);
  const analyzer::Definitions definitions = analyzer::read_definitions(dir);
  analyzer::LocalTrace trace;
  trace.keep_folded_spans = true;
  analyzer::read_rank_trace(dir, definitions, rank, trace, mapping);
  return trace;
}

/// The outcome of reading: "ok" or the error message.
inline std::string outcome_with(const std::string& dir, const char* decoder) {
  try {
    (void)read_with(dir, decoder);
    return "ok";
  } catch (const std::exception& error) {
    return error.what();
  }
}

#define ORRERY_SAME(field)                                                              \
  if (!(a.field == b.field)) {                                                          \
    ADD_FAILURE() << "LocalTraces differ in " #field;                                   \
    return;                                                                             \
  }
#define ORRERY_SAME_AT(table, i, field)                                                 \
  if (!(a.table[i].field == b.table[i].field)) {                                        \
    ADD_FAILURE() << "LocalTraces differ in " #table "[" << i << "]." #field;           \
    return;                                                                             \
  }

/// Every table and counter the TraceBuilder fills, compared.
inline void expect_same_trace(const analyzer::LocalTrace& a, const analyzer::LocalTrace& b) {
  ORRERY_SAME(rank) ORRERY_SAME(measurement_regions) ORRERY_SAME(measurement_regions_used)
  ORRERY_SAME(flushes_are_regions) ORRERY_SAME(events_read) ORRERY_SAME(top_level_instances)
  ORRERY_SAME(loose_events) ORRERY_SAME(folded_top_level_time) ORRERY_SAME(first_time) ORRERY_SAME(last_time)
  ORRERY_SAME(program_name) ORRERY_SAME(program_events) ORRERY_SAME(unclosed_regions)
  ORRERY_SAME(unmatched_requests) ORRERY_SAME(events.size()) ORRERY_SAME(sends.size()) ORRERY_SAME(recvs.size())
  ORRERY_SAME(collectives.size()) ORRERY_SAME(clock_offsets.size()) ORRERY_SAME(calltree.size())
  ORRERY_SAME(folded.size()) ORRERY_SAME(folded_child_time) ORRERY_SAME(folded_spans.size())
  ORRERY_SAME(send_post_times.size()) ORRERY_SAME(recv_times.size())
  for (std::size_t i = 0; i < a.events.size(); ++i) {
    ORRERY_SAME_AT(events, i, time) ORRERY_SAME_AT(events, i, link) ORRERY_SAME_AT(events, i, kind_and_ref)
  }
  for (std::size_t i = 0; i < a.sends.size(); ++i) {
    ORRERY_SAME_AT(sends, i, post_call) ORRERY_SAME_AT(sends, i, complete_call) ORRERY_SAME_AT(sends, i, post_event)
    ORRERY_SAME_AT(sends, i, complete_event) ORRERY_SAME_AT(sends, i, peer) ORRERY_SAME_AT(sends, i, comm)
    ORRERY_SAME_AT(sends, i, tag) ORRERY_SAME_AT(sends, i, cancelled) ORRERY_SAME_AT(sends, i, bytes)
    ORRERY_SAME(send_post_times[i])
  }
  for (std::size_t i = 0; i < a.recvs.size(); ++i) {
    ORRERY_SAME_AT(recvs, i, post_call) ORRERY_SAME_AT(recvs, i, complete_call) ORRERY_SAME_AT(recvs, i, post_event)
    ORRERY_SAME_AT(recvs, i, complete_event) ORRERY_SAME_AT(recvs, i, peer) ORRERY_SAME_AT(recvs, i, comm)
    ORRERY_SAME_AT(recvs, i, tag) ORRERY_SAME_AT(recvs, i, cancelled) ORRERY_SAME_AT(recvs, i, bytes)
    ORRERY_SAME_AT(recv_times, i, post) ORRERY_SAME_AT(recv_times, i, completion)
  }
  for (std::size_t i = 0; i < a.collectives.size(); ++i) {
    ORRERY_SAME_AT(collectives, i, start_call) ORRERY_SAME_AT(collectives, i, complete_call)
    ORRERY_SAME_AT(collectives, i, comm) ORRERY_SAME_AT(collectives, i, root)
    ORRERY_SAME_AT(collectives, i, bytes_sent) ORRERY_SAME_AT(collectives, i, bytes_received)
    ORRERY_SAME_AT(collectives, i, kind) ORRERY_SAME_AT(collectives, i, nonblocking)
  }
  for (std::size_t i = 0; i < a.clock_offsets.size(); ++i) {
    ORRERY_SAME_AT(clock_offsets, i, time) ORRERY_SAME_AT(clock_offsets, i, offset)
  }
  for (std::size_t i = 0; i < a.calltree.size(); ++i) {
    ORRERY_SAME_AT(calltree.nodes(), i, parent) ORRERY_SAME_AT(calltree.nodes(), i, region)
  }
  for (std::size_t i = 0; i < a.folded.size(); ++i) {
    ORRERY_SAME_AT(folded, i, visits) ORRERY_SAME_AT(folded, i, exclusive)
  }
  for (std::size_t i = 0; i < a.folded_spans.size(); ++i) {
    ORRERY_SAME_AT(folded_spans, i, before_event) ORRERY_SAME_AT(folded_spans, i, callpath)
    ORRERY_SAME_AT(folded_spans, i, exclusive)
  }
}

#undef ORRERY_SAME
#undef ORRERY_SAME_AT

/// Rank 0 of `dir` read with libotf2 and then with the decoder where it
/// qualifies, which must have read it itself (`decoder_reads`) or fallen
/// back; the two traces equal. Returns the second.
inline analyzer::LocalTrace read_both_ways(const std::string& dir, bool decoder_reads,
                                           const analyzer::IdMapping* mapping = nullptr) {
  const analyzer::LocalTrace libotf2 = read_with(dir, "otf2", 0, mapping);
  const uint64_t decoded = analyzer::decoder_counts().decoded;
  const uint64_t fell_back = analyzer::decoder_counts().fell_back;
  analyzer::LocalTrace ours = read_with(dir, nullptr, 0, mapping);
  EXPECT_EQ(analyzer::decoder_counts().decoded, decoded + (decoder_reads ? 1 : 0));
  EXPECT_EQ(analyzer::decoder_counts().fell_back, fell_back + (decoder_reads ? 0 : 1));
  expect_same_trace(ours, libotf2);
  return ours;
}

}  // namespace orrery::testing

#pragma once
// What each OTF2 event does to the TraceBuilder, in one place for both ways
// of reading an event file: libotf2's callbacks (otf2_reader.cpp) and
// Orrery's own decoder (otf2_event_decoder.h). Values arrive as OTF2 records
// them (after the location's OTF2 mapping tables); the sink translates ids
// through the analyzer's IdMapping (kMapped), OTF2 operation codes to
// CollectiveKind, the undefined root to kNone and the program name's string
// id to its text.

#include <otf2/otf2.h>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "orrery/error.h"
#include "orrery/trace/trace_builder.h"
#include "orrery/trace/trace_reader.h"

namespace orrery::analyzer {

CollectiveKind to_kind(OTF2_CollectiveOp op);

/// The analyzer's id translation: `table[id]`, an input error where it has none.
uint32_t translate_id(const std::vector<uint32_t>& table, uint32_t id, const char* what);

/// The builder's set-up before the first event (MPI_Init/Finalize as
/// collectives, neighbourhood collectives).
void prepare_builder(const Definitions& definitions, TraceBuilder& builder);

/// Feeds a TraceBuilder; `kMapped`: region and communicator ids go through
/// `mapping` (an incomplete experiment's local -> unified ids).
template <bool kMapped>
class BuilderSink {
 public:
  BuilderSink(LocalTrace& trace, const IdMapping* mapping, const Definitions& definitions)
      : builder(trace), mapping_(mapping), definitions_(definitions) {}

  TraceBuilder builder;
  /// An exception a libotf2 callback caught (it must not cross OTF2's C frames).
  std::exception_ptr failure;

  [[gnu::always_inline]] void enter(uint64_t time, uint32_t region) { builder.enter(at(time), region_of(region)); }
  [[gnu::always_inline]] void leave(uint64_t time, uint32_t region) { builder.leave(at(time), region_of(region)); }
  [[gnu::always_inline]] void send(uint64_t time, uint32_t peer, uint32_t comm, uint32_t tag, uint64_t bytes) {
    builder.send(at(time), peer, comm_of(comm), tag, bytes);
  }
  [[gnu::always_inline]] void recv(uint64_t time, uint32_t peer, uint32_t comm, uint32_t tag, uint64_t bytes) {
    builder.recv(at(time), peer, comm_of(comm), tag, bytes);
  }
  void isend(uint64_t time, uint32_t peer, uint32_t comm, uint32_t tag, uint64_t bytes, uint64_t request) {
    builder.isend(at(time), peer, comm_of(comm), tag, bytes, request);
  }
  void isend_complete(uint64_t time, uint64_t request) { builder.isend_complete(at(time), request); }
  void irecv_request(uint64_t time, uint64_t request) { builder.irecv_request(at(time), request); }
  void irecv(uint64_t time, uint32_t peer, uint32_t comm, uint32_t tag, uint64_t bytes, uint64_t request) {
    builder.irecv(at(time), peer, comm_of(comm), tag, bytes, request);
  }
  void request_cancelled(uint64_t /*time*/, uint64_t request) { builder.request_cancelled(request); }
  void collective_begin(uint64_t time) { builder.collective_begin(at(time)); }
  void collective_end(uint64_t time, uint8_t op, uint32_t comm, uint32_t root, uint64_t sent, uint64_t received) {
    builder.collective_end(at(time), to_kind(static_cast<OTF2_CollectiveOp>(op)), comm_of(comm), root_rank(root),
                           sent, received);
  }
  void nbc_request(uint64_t time, uint64_t request) { builder.nbc_request(at(time), request); }
  void nbc_complete(uint64_t time, uint8_t op, uint32_t comm, uint32_t root, uint64_t sent, uint64_t received,
                    uint64_t request) {
    builder.nbc_complete(at(time), to_kind(static_cast<OTF2_CollectiveOp>(op)), comm_of(comm), root_rank(root),
                         sent, received, request);
  }
  void program_begin(uint64_t time, uint32_t name) {
    const std::vector<std::string>& strings = definitions_.strings;
    builder.program_begin(at(time), name < strings.size() ? strings[name] : std::string());
  }
  void program_end(uint64_t time) { builder.program_end(at(time)); }
  void buffer_flush(uint64_t time, uint64_t stop) { builder.buffer_flush(at(time), at(stop)); }
  void measurement(uint64_t time, uint8_t mode) { builder.measurement(at(time), mode == OTF2_MEASUREMENT_ON); }

 private:
  /// A raw time stamp as the builder takes it: below kTimeLimit (clock.h), or
  /// the file is corrupt (and no difference of two times may overflow).
  [[gnu::always_inline]] int64_t at(uint64_t time) const {
    if (time >= static_cast<uint64_t>(kTimeLimit)) [[unlikely]] throw_time_out_of_range(time);
    return static_cast<int64_t>(time);
  }
  [[noreturn, gnu::cold, gnu::noinline]] void throw_time_out_of_range(uint64_t time) const {
    throw InputError("the trace of rank " + std::to_string(builder.rank()) + " has an event at time " +
                     std::to_string(time) + ", beyond any real clock: the file is corrupt");
  }
  static uint32_t root_rank(uint32_t root) { return root == OTF2_UNDEFINED_UINT32 ? kNone : root; }
  uint32_t region_of(uint32_t id) const {
    if constexpr (kMapped) return translate_id(mapping_->regions, id, "region");
    return id;
  }
  uint32_t comm_of(uint32_t id) const {
    if constexpr (kMapped) return translate_id(mapping_->comms, id, "communicator");
    return id;
  }

  const IdMapping* mapping_;
  const Definitions& definitions_;
};

}  // namespace orrery::analyzer

// The transport between the processes hosting blocks of traced ranks
// (block_host.h): worker threads queue messages for other processes; this
// process's first thread sends them with MPI and delivers what arrives.

#include "block_host.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <list>
#include <thread>

#include "vmpi_block.h"

namespace orrery::vmpi {

std::vector<uint32_t> block_starts(uint32_t ranks, int processes) {
  std::vector<uint32_t> starts;
  for (int p = 0; p <= processes; ++p) {
    starts.push_back(static_cast<uint32_t>(uint64_t{ranks} * static_cast<uint64_t>(p) /
                                           static_cast<uint64_t>(processes)));
  }
  return starts;
}

namespace block {
namespace {

enum class Kind : uint32_t { kMessage, kAcknowledgement };

/// What travels in front of a message's data between processes.
struct Header {
  Kind kind;
  uint32_t destination;  ///< traced rank
  uint64_t context;
  int64_t tag;
  int32_t source;
  uint32_t sender;
  uint64_t sync;
};

constexpr int kTransportTag = 0;

class Host {
 public:
  Host(uint32_t ranks, MPI_Comm transport) : transport_(transport) {
    MPI_Comm_rank(transport, &process_);
    int processes = 0;
    MPI_Comm_size(transport, &processes);
    starts_ = block_starts(ranks, processes);
    for (uint32_t r = first(); r < end(); ++r) mailboxes_.push_back(std::make_unique<Mailbox>());
  }

  [[nodiscard]] uint32_t first() const { return starts_[static_cast<std::size_t>(process_)]; }
  [[nodiscard]] uint32_t end() const { return starts_[static_cast<std::size_t>(process_) + 1]; }
  [[nodiscard]] int home(uint32_t rank) const {
    return static_cast<int>(std::upper_bound(starts_.begin(), starts_.end(), rank) -
                            starts_.begin()) - 1;
  }
  Mailbox& mailbox(uint32_t rank) { return *mailboxes_[rank - first()]; }

  void post(uint32_t destination, Message message) {
    if (home(destination) == process_) {
      mailbox(destination).deliver(std::move(message));
      return;
    }
    queue(Header{Kind::kMessage, destination, message.context, message.tag, message.source,
                 message.sender, message.sync},
          message.data);
  }

  void acknowledge(const Message& message) {
    if (home(message.sender) == process_) {
      reinterpret_cast<Request*>(message.sync)->acknowledged = true;
      mailbox(message.sender).touch();
      return;
    }
    queue(Header{Kind::kAcknowledgement, message.sender, 0, 0, 0, 0, message.sync}, {});
  }

  void finished() {
    --running_;
    outbox_changed_.notify_all();
  }
  void request_abort(int code) {
    abort_code_ = code;
    outbox_changed_.notify_all();
  }
  void set_running(int threads) { running_ = threads; }

  /// Carries messages until every process's threads have finished.
  void carry();

 private:
  void queue(const Header& header, const std::vector<char>& data) {
    std::vector<char> bytes(sizeof header + data.size());
    std::memcpy(bytes.data(), &header, sizeof header);
    if (!data.empty()) std::memcpy(bytes.data() + sizeof header, data.data(), data.size());
    {
      std::lock_guard lock(outbox_mutex_);
      outbox_.emplace_back(home(header.destination), std::move(bytes));
    }
    outbox_changed_.notify_all();
  }
  void dispatch(const std::vector<char>& bytes);
  bool send_queued();
  bool receive_arrived();

  MPI_Comm transport_;
  int process_ = 0;
  std::vector<uint32_t> starts_;
  std::vector<std::unique_ptr<Mailbox>> mailboxes_;
  std::mutex outbox_mutex_;
  std::condition_variable outbox_changed_;
  std::vector<std::pair<int, std::vector<char>>> outbox_;
  std::list<std::pair<MPI_Request, std::vector<char>>> sending_;
  std::atomic<int> running_{0};
  std::atomic<int> abort_code_{-1};
};

Host* host = nullptr;

void Host::dispatch(const std::vector<char>& bytes) {
  Header header{};
  std::memcpy(&header, bytes.data(), sizeof header);
  if (header.kind == Kind::kAcknowledgement) {
    reinterpret_cast<Request*>(header.sync)->acknowledged = true;
    mailbox(header.destination).touch();
    return;
  }
  Message message;
  message.context = header.context;
  message.source = header.source;
  message.tag = header.tag;
  message.sender = header.sender;
  message.sync = header.sync;
  message.data.assign(bytes.begin() + sizeof header, bytes.end());
  mailbox(header.destination).deliver(std::move(message));
}

bool Host::send_queued() {
  std::vector<std::pair<int, std::vector<char>>> batch;
  {
    std::lock_guard lock(outbox_mutex_);
    batch.swap(outbox_);
  }
  for (auto& [process, bytes] : batch) {
    auto& entry = sending_.emplace_back(MPI_REQUEST_NULL, std::move(bytes));
    MPI_Isend(entry.second.data(), static_cast<int>(entry.second.size()), MPI_BYTE, process,
              kTransportTag, transport_, &entry.first);
  }
  for (auto it = sending_.begin(); it != sending_.end();) {
    int done = 0;
    MPI_Test(&it->first, &done, MPI_STATUS_IGNORE);
    it = done != 0 ? sending_.erase(it) : std::next(it);
  }
  return !batch.empty();
}

bool Host::receive_arrived() {
  bool any = false;
  for (;;) {
    int arrived = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kTransportTag, transport_, &arrived, &status);
    if (arrived == 0) return any;
    int size = 0;
    MPI_Get_count(&status, MPI_BYTE, &size);
    std::vector<char> bytes(static_cast<std::size_t>(size));
    MPI_Recv(bytes.data(), size, MPI_BYTE, status.MPI_SOURCE, kTransportTag, transport_,
             MPI_STATUS_IGNORE);
    dispatch(bytes);
    any = true;
  }
}

void Host::carry() {
  MPI_Request everyone_done = MPI_REQUEST_NULL;
  bool waiting_for_others = false;
  auto last_traffic = std::chrono::steady_clock::now();
  for (;;) {
    if (abort_code_ >= 0) MPI_Abort(MPI_COMM_WORLD, abort_code_);
    const bool sent = send_queued();
    const bool received = receive_arrived();
    if (!waiting_for_others && running_ == 0 && sending_.empty()) {
      std::lock_guard lock(outbox_mutex_);
      if (outbox_.empty()) {
        // Our threads are done and all they sent has left: wait for the rest
        // while still delivering (nothing is addressed to finished ranks).
        MPI_Ibarrier(transport_, &everyone_done);
        waiting_for_others = true;
      }
    }
    if (waiting_for_others) {
      int done = 0;
      MPI_Test(&everyone_done, &done, MPI_STATUS_IGNORE);
      if (done != 0) return;
    }
    // While messages flow (the replays are often latency-bound: one message
    // or collective after the other), only yield between polls; after a
    // quiet spell, sleep until a thread queues a message or 200 us pass.
    const auto now = std::chrono::steady_clock::now();
    if (sent || received) {
      last_traffic = now;
    } else if (now - last_traffic < std::chrono::milliseconds(2)) {
      std::this_thread::yield();
    } else {
      std::unique_lock lock(outbox_mutex_);
      outbox_changed_.wait_for(lock, std::chrono::microseconds(200), [&] {
        return !outbox_.empty() || abort_code_ >= 0 || (running_ == 0 && !waiting_for_others);
      });
    }
  }
}

}  // namespace

void post(uint32_t destination, Message message) { host->post(destination, std::move(message)); }

void acknowledge(const Message& message) { host->acknowledge(message); }

void abort(int code) {
  host->request_abort(code);
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

}  // namespace block

void host_block(uint32_t ranks, const std::function<void(MPI_Comm, uint32_t)>& replay) {
  MPI_Comm transport = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &transport);
  block::Host host(ranks, transport);
  block::host = &host;
  block::active = true;
  std::vector<uint32_t> everyone(ranks);
  for (uint32_t r = 0; r < ranks; ++r) everyone[r] = r;
  const uint32_t count = host.end() - host.first();
  std::vector<block::Comm> worlds(count), selves(count);
  std::vector<block::Rank> hosted(count);
  std::vector<std::thread> threads;
  host.set_running(static_cast<int>(count));
  for (uint32_t k = 0; k < count; ++k) {
    const uint32_t rank = host.first() + k;
    worlds[k].context = 2;
    worlds[k].members = everyone;
    worlds[k].rank = static_cast<int>(rank);
    selves[k].context = block::derive_context(0x5E1F, rank);
    selves[k].members = {rank};
    hosted[k] = block::Rank{rank, &host.mailbox(rank), &worlds[k], &selves[k], {}, {}};
    threads.emplace_back([&, k, rank] {
      block::current = &hosted[k];
      try {
        replay(block::handle_of(&worlds[k]), rank);
      } catch (const std::exception& error) {
        std::fprintf(stderr, "orrery-analyze: traced rank %u failed: %s\n", rank, error.what());
        block::abort(1);
      }
      host.finished();
    });
  }
  host.carry();
  for (auto& thread : threads) thread.join();
  block::active = false;
  block::host = nullptr;
  MPI_Comm_free(&transport);
}

}  // namespace orrery::vmpi

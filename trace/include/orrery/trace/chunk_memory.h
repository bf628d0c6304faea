#pragma once
// Where the chunks of the trace's tables (chunked_array.h) live. Normally on
// the heap. Under a memory budget (orrery-analyze --memory-limit), the chunks
// beyond the budget are mapped from a scratch file instead: the analysis is
// the same (the same tables, the same passes over them), but the kernel can
// write those pages out and read them back as the replays walk the trace, so
// a trace larger than the memory streams through the page cache.

#include <cstddef>
#include <cstdint>
#include <string>

namespace orrery::analyzer {

/// One traced rank's budget for chunk memory (the calling thread's, while an
/// instance is installed with ChunkBudget::Scope).
class ChunkBudget {
 public:
  /// `limit` bytes on the heap, the rest in an unlinked scratch file in
  /// `scratch_directory`.
  ChunkBudget(uint64_t limit, std::string scratch_directory);
  ~ChunkBudget();
  ChunkBudget(const ChunkBudget&) = delete;
  ChunkBudget& operator=(const ChunkBudget&) = delete;

  [[nodiscard]] uint64_t limit() const { return limit_; }
  [[nodiscard]] uint64_t on_heap() const { return on_heap_; }
  [[nodiscard]] uint64_t in_scratch_file() const { return mapped_; }

  /// Installs a budget for the calling thread until the scope ends.
  class Scope {
   public:
    explicit Scope(ChunkBudget* budget);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    ChunkBudget* previous_;
  };

  /// A chunk of `bytes` (page-aligned if mapped); `mapped` says how to free it.
  static void* allocate(std::size_t bytes, bool& mapped);
  static void release(void* chunk, std::size_t bytes, bool mapped) noexcept;

 private:
  void* map(std::size_t bytes);

  uint64_t limit_;
  std::string directory_;
  uint64_t on_heap_ = 0;
  uint64_t mapped_ = 0;
  int file_ = -1;
};

}  // namespace orrery::analyzer

#include "orrery/trace/chunk_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#include "orrery/error.h"

namespace orrery::analyzer {
namespace {

thread_local ChunkBudget* installed = nullptr;

std::size_t page_rounded(std::size_t bytes) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

}  // namespace

ChunkBudget::ChunkBudget(uint64_t limit, std::string scratch_directory)
    : limit_(limit), directory_(std::move(scratch_directory)) {}

ChunkBudget::~ChunkBudget() {
  // The mappings stay valid without the descriptor; the file, unlinked at
  // creation, goes when the last mapping does.
  if (file_ >= 0) close(file_);
}

ChunkBudget::Scope::Scope(ChunkBudget* budget) : previous_(installed) { installed = budget; }

ChunkBudget::Scope::~Scope() { installed = previous_; }

void* ChunkBudget::map(std::size_t bytes) {
  if (file_ < 0) {
    std::string path = directory_ + "/.orrery-scratch-XXXXXX";
    file_ = mkstemp(path.data());
    if (file_ < 0) {
      throw InputError("cannot create a scratch file in " + directory_ + " for the trace beyond "
                       "--memory-limit: " + std::strerror(errno));
    }
    unlink(path.c_str());
  }
  const std::size_t length = page_rounded(bytes);
  const auto offset = static_cast<off_t>(mapped_);
  if (ftruncate(file_, offset + static_cast<off_t>(length)) != 0) {
    throw InputError("cannot grow the scratch file in " + directory_ + ": " + std::strerror(errno));
  }
  void* chunk = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, file_, offset);
  if (chunk == MAP_FAILED) {
    throw InputError("cannot map the scratch file in " + directory_ + ": " + std::strerror(errno));
  }
  mapped_ += length;
  return chunk;
}

void* ChunkBudget::allocate(std::size_t bytes, bool& mapped) {
  ChunkBudget* budget = installed;
  mapped = budget != nullptr && budget->on_heap_ + bytes > budget->limit_;
  if (mapped) return budget->map(bytes);
  if (budget != nullptr) budget->on_heap_ += bytes;
  return ::operator new(bytes);
}

void ChunkBudget::release(void* chunk, std::size_t bytes, bool mapped) noexcept {
  if (mapped) {
    munmap(chunk, page_rounded(bytes));
  } else {
    ::operator delete(chunk);
  }
}

}  // namespace orrery::analyzer

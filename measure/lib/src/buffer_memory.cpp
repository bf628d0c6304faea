// Memory for event buffers (buffer_memory.h).

#include "buffer_memory.h"

#include <sys/mman.h>

namespace orrery::measure {
namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
constexpr std::uintptr_t kPage = 4096;

std::uintptr_t round_up(std::uintptr_t value, std::uintptr_t to) { return (value + to - 1) & ~(to - 1); }

}  // namespace

uint8_t* acquire_buffer_memory(std::size_t bytes) noexcept {
  const std::uintptr_t length = round_up(bytes, kPage);
  // Map one huge page more than needed and trim both ends to the alignment.
  const std::uintptr_t span = length + kHugePage;
  void* raw = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = round_up(start, kHugePage);
  if (aligned > start) ::munmap(raw, aligned - start);
  if (start + span > aligned + length) {
    ::munmap(reinterpret_cast<void*>(aligned + length), start + span - aligned - length);
  }
  auto* memory = reinterpret_cast<uint8_t*>(aligned);
  ::madvise(memory, length, MADV_HUGEPAGE);  // a hint: without THP it fails harmlessly
  return memory;
}

void release_buffer_memory(uint8_t* memory, std::size_t bytes) noexcept {
  if (memory != nullptr) ::munmap(memory, round_up(bytes, kPage));
}

}  // namespace orrery::measure

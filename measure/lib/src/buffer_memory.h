#pragma once
// Memory for event buffers. A buffer is written once, front to back, and
// its pages are touched for the first time as events arrive: with 4 KiB
// pages that is a page fault every ~150 Enter+Leave pairs, about 13 ns per
// pair on an OpenMP worker thread (its buffer is fresh memory; the MPI
// thread's usually comes from heap the MPI library had touched already).
// Buffers are therefore mapped 2 MiB-aligned and marked for transparent
// huge pages (MADV_HUGEPAGE, honoured where the kernel's THP mode is
// "madvise" or "always"): one fault per 2 MiB. Where huge pages are not
// available the memory behaves as before. Nothing is touched up front, so
// a thread that records little costs little memory.

#include <cstddef>
#include <cstdint>

namespace orrery::measure {

/// `bytes` of buffer memory (nullptr if it cannot be had). Free with release_buffer_memory.
uint8_t* acquire_buffer_memory(std::size_t bytes) noexcept;
/// Returns memory of acquire_buffer_memory(`bytes`).
void release_buffer_memory(uint8_t* memory, std::size_t bytes) noexcept;

}  // namespace orrery::measure

#pragma once
// An append-only array in fixed-size chunks: growing never copies or
// re-touches what is stored (a doubling vector briefly needs three times its
// size and faults its pages in twice), and indices stay 32-bit.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "orrery/trace/chunk_memory.h"
#include "orrery/trace/ids.h"

namespace orrery::analyzer {

/// Thrown (as InputError) when a table would need index kNone.
[[noreturn]] void throw_table_too_large();

template <class T, unsigned kChunkBits>
class ChunkedArray {
  static_assert(std::is_trivially_copyable_v<T>, "chunks are filled by plain copies");

 public:
  static constexpr std::size_t kChunkSize = std::size_t{1} << kChunkBits;

  ChunkedArray() = default;
  ChunkedArray(std::initializer_list<T> values) {
    for (const T& value : values) push_back(value);
  }
  // The write cursor points into the chunks: a moved-from array starts empty.
  ChunkedArray(ChunkedArray&& other) noexcept { take(other); }
  ChunkedArray& operator=(ChunkedArray&& other) noexcept {
    if (this != &other) take(other);
    return *this;
  }

  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return chunks_[i >> kChunkBits][i & (kChunkSize - 1)]; }
  const T& operator[](std::size_t i) const { return chunks_[i >> kChunkBits][i & (kChunkSize - 1)]; }
  T& back() { return (*this)[size_ - 1]; }

  /// Appends and returns the new entry's index; inline because the trace
  /// reader calls it per event.
  uint32_t push_back(const T& value) {
    if (next_ == limit_) [[unlikely]] next_chunk();
    *next_++ = value;
    return static_cast<uint32_t>(size_++);
  }
  /// Appends and returns the new entry (index size() - 1), which stays where it is.
  T& append(const T& value) {
    if (next_ == limit_) [[unlikely]] next_chunk();
    ++size_;
    return *next_++ = value;
  }
  /// Whether the current chunk has room for one more entry: then
  /// append_in_room needs no check (the reader's Enter/Leave check first
  /// and stay free of calls).
  [[nodiscard]] bool has_room() const { return next_ != limit_; }
  T& append_in_room(const T& value) {
    ++size_;
    return *next_++ = value;
  }
  /// Drops the entries from index `size` on; their memory is reused.
  void truncate(std::size_t size) {
    if (size >= size_) return;
    size_ = size;
    T* chunk = chunks_[size >> kChunkBits].get();
    next_ = chunk + (size & (kChunkSize - 1));
    limit_ = chunk + kChunkSize;
  }
  /// Calls `visit(index, entry)` for every entry in order, a chunk at a time
  /// (no chunk lookup per entry: the replays walk all events this way).
  template <class Visit>
  void for_each(Visit&& visit) const {
    for (std::size_t first = 0; first < size_; first += kChunkSize) {
      const T* chunk = chunks_[first >> kChunkBits].get();
      const std::size_t count = size_ - first < kChunkSize ? size_ - first : kChunkSize;
      for (std::size_t k = 0; k < count; ++k) visit(static_cast<uint32_t>(first + k), chunk[k]);
    }
  }
  /// Calls `visit(first_index, entries, count)` once per chunk: for loops
  /// that keep their state in registers (a per-entry lambda capturing by
  /// reference reloads it after every store through a pointer).
  template <class Visit>
  void for_each_chunk(Visit&& visit) const {
    for (std::size_t first = 0; first < size_; first += kChunkSize) {
      const std::size_t count = size_ - first < kChunkSize ? size_ - first : kChunkSize;
      visit(first, static_cast<const T*>(chunks_[first >> kChunkBits].get()), count);
    }
  }
  /// Hints the cache to fetch entry `i` (< size()): the replays look entries
  /// up at scattered indices. (No bounds check here: GCC 12 drops a
  /// prefetch guarded by one.)
  void prefetch(std::size_t i) const { __builtin_prefetch(&(*this)[i]); }

  template <bool kConst>
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = std::conditional_t<kConst, const T*, T*>;
    using reference = std::conditional_t<kConst, const T&, T&>;
    using Owner = std::conditional_t<kConst, const ChunkedArray, ChunkedArray>;

    Iterator() = default;
    Iterator(Owner* owner, std::size_t index) : owner_(owner), index_(index) {}
    reference operator*() const { return (*owner_)[index_]; }
    pointer operator->() const { return &(*owner_)[index_]; }
    Iterator& operator++() {
      ++index_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++index_;
      return before;
    }
    bool operator==(const Iterator& other) const { return index_ == other.index_; }

   private:
    Owner* owner_ = nullptr;
    std::size_t index_ = 0;
  };
  Iterator<false> begin() { return {this, 0}; }
  Iterator<false> end() { return {this, size_}; }
  Iterator<true> begin() const { return {this, 0}; }
  Iterator<true> end() const { return {this, size_}; }

 private:
  /// Frees a chunk where ChunkBudget::allocate put it.
  struct Release {
    bool mapped = false;
    void operator()(T* chunk) const noexcept {
      ChunkBudget::release(chunk, kChunkSize * sizeof(T), mapped);
    }
  };

  /// The write cursor reached a chunk's end (or none was allocated):
  /// continues in the next chunk, allocating it if needed.
  [[gnu::noinline]] void next_chunk() {
    if (size_ == allocated_) add_chunk();
    next_ = chunks_[size_ >> kChunkBits].get();
    limit_ = next_ + kChunkSize;
  }
  void take(ChunkedArray& other) {
    chunks_ = std::move(other.chunks_);
    size_ = std::exchange(other.size_, 0);
    allocated_ = std::exchange(other.allocated_, 0);
    next_ = std::exchange(other.next_, nullptr);
    limit_ = std::exchange(other.limit_, nullptr);
    other.chunks_.clear();
  }

  void add_chunk() {
    // Indices are 32-bit and kNone is reserved: refuse the chunk that could reach it.
    if (size_ + kChunkSize > kNone) throw_table_too_large();
    bool mapped = false;
    void* memory = ChunkBudget::allocate(kChunkSize * sizeof(T), mapped);
    // T is trivially copyable: the storage holds its objects once written.
    chunks_.emplace_back(static_cast<T*>(memory), Release{mapped});
    allocated_ += kChunkSize;
  }

  std::vector<std::unique_ptr<T[], Release>> chunks_;
  std::size_t size_ = 0;
  std::size_t allocated_ = 0;
  /// Where entry size_ goes, and the end of its chunk (equal: next_chunk first).
  T* next_ = nullptr;
  T* limit_ = nullptr;
};

}  // namespace orrery::analyzer

#pragma once
// std::lower_bound for searches that come in (nearly) increasing order, as
// the delay analysis' interval lookups do: an exponential search outwards
// from where the previous search ended, so a lookup costs O(log distance)
// and touches the memory next to the last one instead of a binary search's
// cache misses over the whole array.

#include <algorithm>
#include <cstddef>

namespace orrery::analyzer {

/// The first position in [0, size) of `items` (sorted by `less`) whose item
/// is not less than `value`, as std::lower_bound; `hint` is where to start
/// looking (the previous result) and is set to the result.
template <class Items, class Value, class Less>
std::size_t lower_bound_near(const Items& items, std::size_t size, const Value& value,
                             std::size_t& hint, Less less) {
  std::size_t low = 0, high = size;  // the answer lies in [low, high]
  std::size_t at = std::min(hint, size);
  if (at < size && less(items[at], value)) {
    low = at + 1;
    for (std::size_t step = 1; low + step - 1 < size; step *= 2) {
      if (!less(items[low + step - 1], value)) {
        high = low + step - 1;
        break;
      }
      low += step;
    }
  } else {
    high = at;
    for (std::size_t step = 1; step <= high; step *= 2) {
      if (less(items[high - step], value)) {
        low = high - step + 1;
        break;
      }
      high -= step;
    }
  }
  // Binary search in [low, high).
  while (low < high) {
    const std::size_t middle = low + (high - low) / 2;
    if (less(items[middle], value)) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  hint = low;
  return low;
}

}  // namespace orrery::analyzer

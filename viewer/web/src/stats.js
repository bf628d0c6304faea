// Statistics of a call path's values across processes: min, quartiles
// (linear interpolation between order statistics, as numpy's default),
// max, mean and standard deviation (of the population).

export function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return sorted[low] + (sorted[high] - sorted[low]) * (at - low);
}

/** {min, q1, median, q3, max, mean, stddev, count} of `values`. */
export function describe(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const count = sorted.length;
  const mean = count ? sorted.reduce((a, b) => a + b, 0) / count : NaN;
  const variance = count ? sorted.reduce((a, v) => a + (v - mean) ** 2, 0) / count : NaN;
  return {
    min: sorted[0] ?? NaN,
    q1: quantile(sorted, 0.25),
    median: quantile(sorted, 0.5),
    q3: quantile(sorted, 0.75),
    max: sorted[count - 1] ?? NaN,
    mean,
    stddev: Math.sqrt(variance),
    count,
  };
}

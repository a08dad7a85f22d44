/** The q-quantile (0…1) of ascending `sorted` (nearest rank, no interpolation); NaN when empty. */
export function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

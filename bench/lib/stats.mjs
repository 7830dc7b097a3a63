// Helpers shared by the benchmarks: interleaved rounds, medians, ratios within a round, markdown.

/** The median of a list of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * Runs every case once per round, in an order that rotates each round (A B C, B C A, C A B…), so
 * that no case always runs first or right after another, and load that comes and goes on a shared
 * machine lands on every case alike.
 *
 * Each case is `{ name, run(operations) }`; `operations` is a number or a function of the case name.
 * `clock` (ms) is wall time unless told (`cpuClock` for in-process work).
 * `shuffle`: a fresh random order each round instead of the rotation, whose cyclic order keeps
 * every case right after the same neighbour, so a case always pays what that neighbour leaves
 * behind (its garbage, collected in the next case's time): bench/proxy.mjs measured a client 1.15-1.5×
 * slower than an identical one only because it ran after ky's floor.
 * Returns per case the median time per operation (µs) and, against `baseline`, the median of the
 * ratios taken within each round: two cases of the same round ran a few milliseconds apart, so
 * their ratio is steadier than the ratio of two medians.
 */
export async function interleave(cases, { rounds, operations, baseline, clock = wallClock, shuffle = false }) {
  const samples = new Map(cases.map(({ name }) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = shuffle ? shuffled(cases) : cases.map((_, offset) => cases[(round + offset) % cases.length]);
    for (const { name, run } of order) {
      const count = typeof operations === 'function' ? operations(name) : operations;
      const start = clock();
      await run(count);
      samples.get(name).push(((clock() - start) * 1000) / count);
    }
  }
  const results = new Map();
  const base = baseline ? samples.get(baseline) : undefined;
  for (const [name, values] of samples) {
    results.set(name, {
      samples: values,
      micros: median(values),
      ratio: base ? median(values.map((value, round) => value / base[round])) : undefined,
    });
  }
  return results;
}

/** A copy of `list` in a random order (Fisher-Yates). */
function shuffled(list) {
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

/** Wall time in ms: `interleave`'s default clock. */
export const wallClock = () => performance.now();

/**
 * This process's CPU time (user and system) in ms: a clock for work that never waits (in-process
 * cases), which other processes on a shared machine do not move as they move wall time.
 */
export const cpuClock = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** The value at quantile `q` (0 to 1) of a list of numbers, nearest rank. */
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.round(q * (sorted.length - 1))];
}

/** The median of the ratios `a[i] / b[i]` of two cases' samples taken in the same rounds. */
export function pairedRatio(a, b) {
  return median(a.samples.map((value, round) => value / b.samples[round]));
}

/** A number with a fixed count of decimals; `—` for what was not measured. */
export function fixed(value, digits = 2) {
  return Number.isFinite(value) ? value.toFixed(digits) : '—';
}

/** `1.07×` */
export function times(ratio) {
  return `${fixed(ratio)}×`;
}

/** A markdown table from a header row and rows. */
export function table(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** `met` or `**missed**`, for the target column. */
export function verdict(met) {
  return met ? 'met' : '**missed**';
}

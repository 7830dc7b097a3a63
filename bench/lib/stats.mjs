// Small helpers shared by the benchmarks: interleaved rounds, medians, ratios, markdown.

/** The median of a list of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * Runs every case once per round, in an order that rotates each round (A B C, B C A, …), and
 * returns each case's median time per operation in microseconds.
 */
export async function interleave(cases, { rounds, operations }) {
  const samples = new Map(cases.map(({ name }) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let offset = 0; offset < cases.length; offset++) {
      const { name, run } = cases[(round + offset) % cases.length];
      const start = performance.now();
      await run(operations);
      samples.get(name).push(((performance.now() - start) * 1000) / operations);
    }
  }
  return new Map([...samples].map(([name, values]) => [name, median(values)]));
}

/** Formats a number with a fixed count of significant decimals. */
export function fixed(value, digits = 2) {
  return Number.isFinite(value) ? value.toFixed(digits) : String(value);
}

/** A markdown table from a header row and rows. */
export function table(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

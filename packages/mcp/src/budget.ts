// The size budget of one tool result: what a model reads costs its context window. A result over
// it is cut (items dropped from the end of its longest list) and says so in its `hint`.

/** Largest structured result, in characters of JSON (about 4 000 tokens). */
export const RESULT_BUDGET_CHARS = 16_000;

/**
 * `result` within `budget` characters of JSON: items are dropped from the end of its longest
 * top-level array until it fits, and `hint` tells the model how to narrow the question.
 */
export function withinBudget<T extends object>(result: T, budget = RESULT_BUDGET_CHARS): T {
  if (JSON.stringify(result).length <= budget) return result;
  const cut = { ...result } as Record<string, unknown>;
  const field = Object.keys(cut)
    .filter((key) => Array.isArray(cut[key]))
    .sort((a, b) => JSON.stringify(cut[b]).length - JSON.stringify(cut[a]).length)[0];
  if (field === undefined) return result;
  const items = [...(cut[field] as unknown[])];
  const hint = (dropped: number) => `${dropped} item(s) of ${field} left out to keep the result short: ask for a smaller page (limit) or a narrower question`;
  let dropped = 0;
  cut[field] = items;
  // The hint is part of the result: it counts against the budget as it grows.
  cut['hint'] = hint(dropped);
  while (items.length > 0 && JSON.stringify(cut).length > budget) {
    items.pop();
    cut['hint'] = hint(++dropped);
  }
  return cut as T;
}

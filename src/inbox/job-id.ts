// A delivery id as a BullMQ job id and back. BullMQ refuses ids with `:` (its key separator) and
// takes an all-digit id for one of its own counters, so an id is prefixed and `%`, `:` escaped.

/** `d_` + the delivery id with `%` and `:` escaped: unique, reversible, never all digits. */
export function jobIdOf(deliveryId: string): string {
  return `d_${deliveryId.replace(/[%:]/g, (char) => (char === '%' ? '%25' : '%3A'))}`;
}

/** The delivery id a job id was made from (`jobIdOf` reversed). */
export function deliveryIdOf(jobId: string): string {
  return jobId.slice(2).replace(/%3A|%25/g, (escape) => (escape === '%3A' ? ':' : '%'));
}

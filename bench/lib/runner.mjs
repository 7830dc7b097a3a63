/** Runs `operations` calls of `call`, `concurrency` at a time: the load loop of the per-request benches. */
export function runner(call, concurrency) {
  return async (operations) => {
    let next = 0;
    const worker = async () => {
      while (next++ < operations) await call();
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  };
}

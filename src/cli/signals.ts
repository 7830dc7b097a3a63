/** Resolves with the first SIGINT (Ctrl+C) or SIGTERM, which then no longer ends the process by itself. */
export function untilStopped(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** Writes one line to `stream`. */
export function println(stream: NodeJS.WritableStream, line: string): void {
  stream.write(`${line}\n`);
}

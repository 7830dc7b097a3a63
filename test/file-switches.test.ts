// How many files a newcomer following one delivery, or one call, passes through (issues 31 and
// 32), counted by bench/file-switches.mjs with a debugger over src/: the path through the code, not
// a time, so the figure is the same on a slow machine. The bounds: issue 32's for a delivery (at most
// 25; 22 now, 53 before it), and one over today's 17 for a call (29 in issue 31). A change that makes
// a path longer than that fails here and has to say why.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

interface Count {
  label: 'cold' | 'warm';
  switches: number;
  list: { from: string; to: string; via: string }[];
  statements: number;
  files: string[];
  loaded: string[];
  timers: number;
  truncated: boolean;
}

const script = fileURLToPath(new URL('../bench/file-switches.mjs', import.meta.url));

describe('file switches of one delivery and one call (bench/file-switches.mjs)', () => {
  const counts = new Map<string, Count>();

  beforeAll(async () => {
    // Each scenario in a process of its own, both at once (about 8 s, most of it waiting for the SDK to be idle).
    const outputs = await Promise.all(
      ['delivery', 'call'].map((only) => promisify(execFile)(process.execPath, [script, '--only', only, '--json'], { maxBuffer: 64 * 1024 * 1024, timeout: 150_000 })),
    );
    for (const { stdout } of outputs) {
      for (const { scenario, runs } of JSON.parse(stdout) as { scenario: string; runs: Count[] }[]) {
        for (const run of runs) counts.set(`${scenario} ${run.label}`, run);
      }
    }
  }, 160_000);

  it('follows the whole delivery, from the listener to the answer, and nothing else', () => {
    const warm = counts.get('delivery warm')!;
    expect(warm.truncated).toBe(false);
    expect(warm.timers).toBe(0);
    // From the adapter, through every stage of the receiver (the check, the dedupe store), back to the adapter's answer.
    expect(warm.files).toEqual(expect.arrayContaining(['src/webhooks/node-listener.ts', 'src/webhooks/receiver.ts', 'src/webhooks/verify.ts', 'src/webhooks/dedupe-memory.ts']));
    expect(warm.list.at(-1)?.to).toMatch(/^src\/webhooks\/node-listener\.ts:/);
  });

  it('one delivery through toNodeListener(createWebhookHandler({ secret, on })) switches files at most 25 times (issue 32; 53 before it)', () => {
    expect(counts.get('delivery warm')!.switches).toBeLessThanOrEqual(25);
    expect(counts.get('delivery cold')!.switches).toBeLessThanOrEqual(25);
  });

  it('follows the whole call, ky calling back into the SDK included', () => {
    const warm = counts.get('call warm')!;
    expect(warm.truncated).toBe(false);
    expect(warm.files).toEqual(expect.arrayContaining(['src/resources/rooms.ts', 'src/core/http.ts', 'src/core/attempt.ts', 'src/core/body.ts']));
    expect(warm.list.some(({ via }) => via === 'called by ky')).toBe(true);
  });

  it('one client.rooms.create switches files at most 18 times (29 in issue 31)', () => {
    expect(counts.get('call warm')!.switches).toBeLessThanOrEqual(18);
    expect(counts.get('call cold')!.switches).toBeLessThanOrEqual(18);
  });
});

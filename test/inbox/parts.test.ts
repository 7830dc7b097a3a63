// The inbox's small parts, each against its contract without Redis: what an INFO answer says of
// durability, the job id of a delivery id, the digest of a stored delivery, the rate-limited failure
// log, how Redis trouble is explained and redacted, and how a filter is read.
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { deadLetterOf, deadLetters, listEntries, listingOf, replayEntries, selectionOf, showEntry } from '../../src/inbox/bullmq-entries.js';
import { describeConnection, explainTrouble, scrub, watchTrouble } from '../../src/inbox/connection-trouble.js';
import { durabilityOf } from '../../src/inbox/durability.js';
import { failureLog } from '../../src/inbox/failure-log.js';
import { digestOf, tamperingOf } from '../../src/inbox/integrity.js';
import { deliveryIdOf, jobIdOf } from '../../src/inbox/job-id.js';

describe('durabilityOf(info, acceptNoPersistence)', () => {
  const info = (lines: string[]) => `# Server\r\nredis_version:7.2.4\r\n${lines.join('\r\n')}\r\n`;

  test.each(['allkeys-lru', 'volatile-ttl', 'allkeys-random', 'volatile-lfu'])('refuses maxmemory_policy %s, naming it and the fix, whatever the persistence', (policy) => {
    const verdict = durabilityOf(info([`maxmemory_policy:${policy}`, 'aof_enabled:1']), true);
    expect(verdict).toEqual({
      refuse: `[svc-sdk] inbox: Redis evicts keys under memory pressure (maxmemory-policy ${policy}), so stored deliveries could vanish: set maxmemory-policy noeviction (redis.conf, or CONFIG SET maxmemory-policy noeviction)`,
    });
  });

  test('noeviction with an append-only file: nothing to say; a policy missing from INFO is not refused', () => {
    expect(durabilityOf(info(['maxmemory_policy:noeviction', 'aof_enabled:1']), false)).toEqual({});
    expect(durabilityOf(info(['aof_enabled:1']), false)).toEqual({});
  });

  test('no append-only file: a warning with the last snapshot\'s time, none when accepted', () => {
    const verdict = durabilityOf(info(['maxmemory_policy:noeviction', 'aof_enabled:0', 'rdb_last_save_time:1700000000']), false);
    expect(verdict.warn).toBe(
      '[svc-sdk] inbox: Redis has no append-only file (appendonly no): deliveries stored since its last snapshot (the last snapshot: 2023-11-14T22:13:20.000Z) are lost if it stops. ' +
        'Set appendonly yes (appendfsync everysec loses at most a second, always nothing), or pass acceptNoPersistence: true to accept it.',
    );
    expect(durabilityOf(info(['maxmemory_policy:noeviction', 'aof_enabled:0']), false).warn).toMatch(/since its last snapshot are lost/);
    expect(durabilityOf(info(['maxmemory_policy:noeviction', 'aof_enabled:0', 'rdb_last_save_time:0']), false).warn).toMatch(/since its last snapshot are lost/);
    expect(durabilityOf(info(['maxmemory_policy:noeviction', 'aof_enabled:0']), true)).toEqual({});
    // The field anchored at a line's start: a neighbour's name ending the same way is not read.
    expect(durabilityOf(info(['maxmemory_policy:noeviction', 'xaof_enabled:1', 'aof_enabled:0']), false).warn).toBeDefined();
    expect(durabilityOf(info(['xmaxmemory_policy:allkeys-lru', 'maxmemory_policy:noeviction', 'aof_enabled:1']), false)).toEqual({});
    expect(durabilityOf(info(['maxmemory_policy:noeviction', 'aof_enabled:0', 'x_rdb_last_save_time:1', 'rdb_last_save_time:1700000000']), false).warn).toMatch(/2023-11-14T22:13:20\.000Z/);
  });
});

describe('jobIdOf / deliveryIdOf', () => {
  test.each([
    ['plain', 'd_plain'],
    ['12345', 'd_12345'],
    ['a:b', 'd_a%3Ab'],
    ['50%', 'd_50%25'],
    ['%3A:%25', 'd_%253A%3A%2525'],
  ])('%s ↔ %s, and back exactly', (deliveryId, jobId) => {
    expect(jobIdOf(deliveryId)).toBe(jobId);
    expect(deliveryIdOf(jobId)).toBe(deliveryId);
  });
});

describe('digestOf / tamperingOf', () => {
  test('a SHA-256 without a key, an HMAC with one; each part length-prefixed, so moving a byte between parts changes it', () => {
    const plain = digestOf('d1', 'ping.test', '{}', undefined);
    expect(plain).toMatch(/^sha256=[0-9a-f]{64}$/);
    const keyed = digestOf('d1', 'ping.test', '{}', 'k'.repeat(16));
    expect(keyed).toMatch(/^hmac-sha256=[0-9a-f]{64}$/);
    expect(digestOf('d1', 'ping.test', '{}', 'x'.repeat(16))).not.toBe(keyed);
    expect(digestOf('d1p', 'ing.test', '{}', undefined)).not.toBe(plain);
    expect(digestOf('d1', 'ping.test{', '}', undefined)).not.toBe(plain);
    // Node's own SHA-256 over the same framing: 2:d1 9:ping.test 2:{}.
    expect(plain).toBe(`sha256=${createHashHex('2:d19:ping.test2:{}')}`);
  });

  test('the stored one passes; any edit, another key, or a missing digest under a key is said', () => {
    const key = 'k'.repeat(16);
    expect(tamperingOf('d1', 'ping.test', '{}', digestOf('d1', 'ping.test', '{}', undefined), undefined)).toBeUndefined();
    expect(tamperingOf('d1', 'ping.test', '{}', digestOf('d1', 'ping.test', '{}', key), key)).toBeUndefined();
    const edited = tamperingOf('d1', 'ping.test', '{"x":1}', digestOf('d1', 'ping.test', '{}', undefined), undefined);
    expect(edited).toBe('its body, kind or delivery id no longer match the digest the receiver stored (edited in Redis?)');
    expect(tamperingOf('d1', 'ping.test', '{}', digestOf('d1', 'ping.test', '{}', undefined), key)).toBe(edited);
    expect(tamperingOf('d1', 'ping.test', '{}', 'sha256=short', undefined)).toBe(edited);
    expect(tamperingOf('d1', 'ping.test', '{}', undefined, key)).toBe('it has no digest (stored without integrityKey, or edited)');
    // Stored by svc-sdk 0.4 (no digest), without a key: runs.
    expect(tamperingOf('d1', 'ping.test', '{}', undefined, undefined)).toBeUndefined();
  });
});

function createHashHex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

describe('failureLog(warn, intervalMs)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  test('the first line at once, the next ones counted until the interval is over, then the count said once; redacted', () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    const log = failureLog((line) => void lines.push(line), 10_000);
    log.report('failed: redis://:pw@db:6379 with whsec_abc123');
    expect(lines).toEqual(['failed: redis://[redacted]:[redacted]@db:6379 with [redacted]']);
    log.report('second');
    log.report('third');
    expect(lines).toHaveLength(1);
    vi.advanceTimersByTime(9_999);
    expect(lines).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(lines[1]).toBe('[svc-sdk] inbox worker: 2 more failures in the last 10 s, not shown (failureLogIntervalMs)');
    // The count is a line of its interval: a failure right after it is counted in turn, said an interval later.
    vi.advanceTimersByTime(1);
    log.report('right after the count');
    expect(lines).toHaveLength(2);
    vi.advanceTimersByTime(9_998);
    expect(lines).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(lines[2]).toBe('[svc-sdk] inbox worker: 1 more failure in the last 10 s, not shown (failureLogIntervalMs)');
    lines.splice(2);
    vi.advanceTimersByTime(10_000);
    log.report('fourth');
    expect(lines[2]).toBe('fourth');
    log.report('fifth');
    log.flush();
    expect(lines[3]).toBe('[svc-sdk] inbox worker: 1 more failure in the last 10 s, not shown (failureLogIntervalMs)');
    log.flush();
    expect(lines).toHaveLength(4);
  });

  test('a flush starts an interval: a failure after it is said an interval after the flush\'s line, not when the earlier count was due', () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    const log = failureLog((line) => void lines.push(line), 10_000);
    log.report('first');
    vi.advanceTimersByTime(1);
    log.report('counted, due at 10 s');
    vi.advanceTimersByTime(4_999);
    log.flush();
    expect(lines).toEqual(['first', '[svc-sdk] inbox worker: 1 more failure in the last 10 s, not shown (failureLogIntervalMs)']);
    log.report('counted after the flush');
    vi.advanceTimersByTime(5_000);
    expect(lines).toHaveLength(2);
    vi.advanceTimersByTime(5_000);
    expect(lines).toHaveLength(3);
  });

  test('the timer that says the count later never keeps a process alive', () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const lines: string[] = [];
    const log = failureLog((line) => void lines.push(line), 60_000);
    const before = timers();
    log.report('said');
    log.report('counted');
    expect(timers()).toBe(before);
    log.flush();
    expect(lines).toHaveLength(2);
  });

  test('interval 0 writes every line; a warn that throws changes nothing', () => {
    const lines: string[] = [];
    const log = failureLog((line) => void lines.push(line), 0);
    for (const line of ['a', 'b', 'c']) log.report(line);
    expect(lines).toEqual(['a', 'b', 'c']);
    const throwing = failureLog(() => {
      throw new Error('logger down');
    }, 0);
    expect(() => throwing.report('x')).not.toThrow();
  });
});

describe('Redis trouble, explained and redacted', () => {
  test('describeConnection: a URL redacted, host:port (defaults 127.0.0.1:6379), or a client', () => {
    expect(describeConnection({ url: 'redis://user:pw@db.internal:6380/2' })).toBe('redis://[redacted]:[redacted]@db.internal:6380/2');
    expect(describeConnection({ url: 'rediss://:pw@db.internal' })).toBe('rediss://[redacted]:[redacted]@db.internal');
    expect(describeConnection({ host: 'db', port: 7000 })).toBe('db:7000');
    expect(describeConnection({})).toBe('127.0.0.1:6379');
    expect(describeConnection({ connect: () => undefined, duplicate: () => undefined })).toBe('the Redis client passed as connection');
  });

  test('scrub hides every URL\'s credentials and the connection\'s password, written anywhere', () => {
    expect(scrub('tried http://:pw1@a and redis://u:pw1@b, said pw1', { url: 'redis://:pw1@b' })).toBe('tried http://[redacted]:[redacted]@a and redis://[redacted]:[redacted]@b, said [redacted]');
    expect(scrub('AUTH hunter2 failed', { host: 'x', password: 'hunter2' })).toBe('AUTH [redacted] failed');
    expect(scrub('AUTH hunter2 failed', { url: 'redis://:hunter%32@x' })).toBe('AUTH [redacted] failed');
    expect(scrub('nothing here', { url: 'not a url' })).toBe('nothing here');
    expect(scrub('nothing here', { url: 'redis://x' })).toBe('nothing here');
    // Only a password that is a string and not empty is looked for.
    expect(scrub('job 123 done', { host: 'x', password: 123 as never })).toBe('job 123 done');
    expect(scrub('job done', { host: 'x', password: '' })).toBe('job done');
  });

  test('explainTrouble: WRONGPASS, NOAUTH, refused or unknown hosts each one line with the fix; anything else undefined', () => {
    expect(explainTrouble(new Error('WRONGPASS invalid username-password pair'), 'h:1')).toMatch(/^\[svc-sdk\] inbox: Redis at h:1 refused the password \(WRONGPASS\): pass the right one/);
    expect(explainTrouble(new Error('ERR invalid password'), 'h:1')).toMatch(/refused the password/);
    expect(explainTrouble(new Error('NOAUTH Authentication required.'), 'h:1')).toMatch(/^\[svc-sdk\] inbox: Redis at h:1 needs a password \(NOAUTH\)/);
    expect(explainTrouble(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), 'h:1')).toBe(
      '[svc-sdk] inbox: cannot reach Redis at h:1 (ECONNREFUSED): start it (redis-server) or pass its address (connection, or --redis redis://host:port)',
    );
    expect(explainTrouble(Object.assign(new Error('getaddrinfo ENOTFOUND nope'), { code: 'ENOTFOUND' }), 'h:1')).toMatch(/cannot reach Redis at h:1 \(ENOTFOUND\)/);
    // The code alone says it, whatever the message.
    expect(explainTrouble(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), 'h:1')).toMatch(/\(ECONNREFUSED\)/);
    expect(explainTrouble(Object.assign(new Error('x'), { code: 'ENOTFOUND' }), 'h:1')).toMatch(/\(ENOTFOUND\)/);
    expect(explainTrouble(Object.assign(new Error('x'), { code: 'ECONNRESET' }), 'h:1')).toBeUndefined();
    expect(explainTrouble(new Error('getaddrinfo ENOTFOUND nope'), 'h:1')).toMatch(/\(ENOTFOUND\)/);
    expect(explainTrouble(Object.assign(new Error('x'), { code: 'EHOSTUNREACH' }), 'h:1')).toMatch(/\(EHOSTUNREACH\)/);
    expect(explainTrouble(Object.assign(new Error('x'), { code: 'EAI_AGAIN' }), 'h:1')).toMatch(/\(EAI_AGAIN\)/);
    expect(explainTrouble(new Error('Redis said ECONNREFUSED somewhere'), 'h:1')).toMatch(/\(ECONNREFUSED\)/);
    expect(explainTrouble(new Error('ERR unknown command'), 'h:1')).toBeUndefined();
    expect(explainTrouble('a string', 'h:1')).toBeUndefined();
    expect(explainTrouble(null, 'h:1')).toBeUndefined();
  });

  test('watchTrouble.bounded: the answer when it comes; the deadline with the last error; ours as they are; others scrubbed and prefixed', async () => {
    const watch = watchTrouble({ url: 'redis://:pw@h:1' }, 50);
    expect(await watch.bounded('stats', async () => 7)).toBe(7);
    await expect(watch.bounded('stats', () => new Promise(() => {}))).rejects.toThrow('[svc-sdk] inbox stats: Redis at redis://[redacted]:[redacted]@h:1 did not answer within 50 ms (timeoutMs): is it a Redis? check the address (connection, or --redis)');
    const ours = new Error('[svc-sdk] inbox.replay: refused');
    await expect(watch.bounded('replay', () => Promise.reject(ours))).rejects.toBe(ours);
    const foreign = new Error('ERR at redis://:pw@h:1 pw');
    const wrapped = (await watch.bounded('list', () => Promise.reject(foreign)).catch((caught: unknown) => caught)) as Error;
    expect(wrapped.message).toBe('[svc-sdk] inbox list: ERR at redis://[redacted]:[redacted]@h:1 [redacted]');
    expect(wrapped.cause).toBe(foreign);
    watch.hear(new Error('Connection is closed at pw'));
    await expect(watch.bounded('stats', () => new Promise(() => {}))).rejects.toThrow('[svc-sdk] inbox stats: Redis at redis://[redacted]:[redacted]@h:1 did not answer within 50 ms (timeoutMs) (last error: Connection is closed at [redacted])');
    // Trouble that waiting may mend (a closed connection) does not end an operation that waits…
    const patient = watch.bounded('stats', () => new Promise((resolve) => setTimeout(() => resolve('late'), 30)));
    watch.hear(new Error('Connection is closed'));
    expect(await patient).toBe('late');
    // …a refusal heard while an operation waits ends it at once, explained, its cause kept.
    const waiting = watch.bounded('stats', () => new Promise(() => {}));
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    watch.hear(refused);
    const error = (await waiting.catch((caught: unknown) => caught)) as Error;
    expect(error.message).toMatch(/^\[svc-sdk\] inbox: cannot reach Redis at redis:\/\/\[redacted\]:\[redacted\]@h:1 \(ECONNREFUSED\)/);
    expect(error.cause).toBe(refused);
    // And a later failure of another kind is explained by that refusal.
    await expect(watch.bounded('stats', () => Promise.reject(new Error('Stream isn\'t writeable')))).rejects.toThrow(/cannot reach Redis/);
  });

  test('watchTrouble.bounded: an operation that answered or failed leaves no deadline timer keeping the process alive', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const watch = watchTrouble({ host: 'h', port: 1 }, 60_000);
    const before = timers();
    expect(await watch.bounded('stats', async () => 7)).toBe(7);
    await expect(watch.bounded('stats', () => Promise.reject(new Error('ERR x')))).rejects.toThrow('[svc-sdk] inbox stats: ERR x');
    expect(timers()).toBe(before);
  });
});

describe('selectionOf(filter)', () => {
  const job = (name: string, receivedAt: number) => ({ name, data: { body: '', receivedAt } }) as never;

  test('every state by default (or the default given); kinds, since (inclusive) and until (exclusive) narrow', () => {
    expect(selectionOf({}, 'op').statuses).toEqual(['waiting', 'active', 'delayed', 'completed', 'dead']);
    expect(selectionOf({}, 'op', ['dead']).statuses).toEqual(['dead']);
    expect(selectionOf({ status: 'completed' }, 'op').statuses).toEqual(['completed']);
    const { matches } = selectionOf({ kind: ['a', 'b'], since: 100, until: new Date(200) }, 'op');
    expect([matches(job('a', 99)), matches(job('a', 100)), matches(job('b', 199)), matches(job('b', 200)), matches(job('c', 150))]).toEqual([false, true, true, false, false]);
    expect(selectionOf({ kind: 'a' }, 'op').matches(job('a', 0))).toBe(true);
    expect(selectionOf({ since: '1970-01-01T00:00:00.100Z' }, 'op').matches(job('x', 100))).toBe(true);
    expect(selectionOf({}, 'op').matches(job('x', 0))).toBe(true);
  });

  test('a bad state, kind or time names the operation, the field and the fix', () => {
    expect(() => selectionOf({ status: 'failed' as never }, 'inbox.list')).toThrow('[svc-sdk] inbox.list: status must be waiting, active, delayed, completed, dead (got "failed")');
    expect(() => selectionOf({ kind: ['ping.test', 1] as never }, 'inbox.list')).toThrow(/kind must be an event kind/);
    // Only ISO dates as text: what Date.parse also reads loosely is refused.
    expect(() => selectionOf({ since: 'March 7, 2026' }, 'op')).toThrow(/since must be a Date/);
    expect(() => selectionOf({ since: true as never }, 'op')).toThrow(/since must be a Date/);
    // Not text, though its text is a date: refused too.
    expect(() => selectionOf({ since: { toString: () => '2026-03-01' } as never }, 'op')).toThrow(/since must be a Date/);
    expect(() => selectionOf({ kind: [1] as never }, 'inbox.list')).toThrow('[svc-sdk] inbox.list: kind must be an event kind such as document.uploaded, or a list of them');
    expect(() => selectionOf({ until: 'soon' }, 'inbox.replay')).toThrow('[svc-sdk] inbox.replay: until must be a Date, ms since the epoch or an ISO 8601 date such as 2026-01-31T14:00:00Z (got "soon")');
    expect(() => selectionOf({ since: Number.NaN }, 'op')).toThrow(/since must be a Date/);
    expect(() => selectionOf({ since: new Date('x') }, 'op')).toThrow(/since must be a Date/);
    expect(() => selectionOf({ since: '2026-13-45' }, 'op')).toThrow(/since must be a Date/);
    // Each of these Date.parse reads (as some date): refused, an ISO date starts with four digits, two and two.
    for (const loose of ['on 2026-03-01', '1-03-01', 'abcd-03-01', '2026-3-01', '2026- 3-01', '2026-03- 1', '2026-03-1 ']) {
      expect(Number.isFinite(Date.parse(loose))).toBe(true);
      expect(() => selectionOf({ since: loose }, 'op'), loose).toThrow(/since must be a Date/);
    }
  });
});

describe('the entries over a queue (a stand-in for BullMQ\'s Queue: its getJobs pages, getJob, a job\'s getState and retry)', () => {
  type FakeJob = { id: string; name: string; data: { body: string; receivedAt: number }; attemptsMade: number; failedReason: string; finishedOn?: number; stalledCounter?: number; state: string; retried: unknown[]; getState(): Promise<string>; retry(...args: unknown[]): Promise<void> };
  const fakeJob = (id: string, fields: Partial<FakeJob> = {}): FakeJob => {
    const job: FakeJob = {
      id: `d_${id}`,
      name: 'ping.test',
      data: { body: JSON.stringify({ event: 'ping.test', version: '1.0', delivery_id: id, timestamp: '2026-03-01T10:00:00Z', data: {} }), receivedAt: 0 },
      attemptsMade: 1,
      failedReason: '',
      state: 'failed',
      retried: [],
      getState: async () => job.state,
      retry: async (...args) => void job.retried.push(args),
      ...fields,
    };
    return job;
  };
  /** A queue holding `jobs` by BullMQ state, answering getJobs(types, start, end) as BullMQ does (end inclusive). */
  const fakeQueue = (jobs: FakeJob[], reads: Array<[string, number, number]> = []) => {
    const queue = {
      getJobs: async ([type]: string[], start: number, end: number) => {
        reads.push([type!, start, end]);
        return jobs.filter((job) => job.state === type).slice(start, end + 1);
      },
      getJob: async (jobId: string) => jobs.find((job) => job.id === jobId),
    };
    return queue as unknown as never;
  };

  test('deadLetters: every one across pages of 500 (1 201 here), oldest dead first whatever the order stored; a worker death said as such', async () => {
    const many = Array.from({ length: 1201 }, (_, n) => fakeJob(`m${n}`, { finishedOn: 5000 - n, data: { body: '{}', receivedAt: n } }));
    const reads: Array<[string, number, number]> = [];
    const queue = fakeQueue(many, reads);
    const dead = await deadLetters(queue);
    expect(dead).toHaveLength(1201);
    expect(dead[0]?.deliveryId).toBe('m1200');
    expect(dead.at(-1)?.deliveryId).toBe('m0');
    expect(reads).toEqual([
      ['failed', 0, 499],
      ['failed', 500, 999],
      ['failed', 1000, 1499],
    ]);
    // list() stops at 1000 by default, the oldest stored first.
    const listed = await listEntries(queue, { status: 'dead' });
    expect(listed).toHaveLength(1000);
    expect([listed[0]?.deliveryId, listed.at(-1)?.deliveryId]).toEqual(['m0', 'm999']);
    const crashed = fakeJob('c', { failedReason: 'job stalled more than allowable limit', stalledCounter: 3 });
    expect(listingOf(crashed as never, 'dead').lastError).toBe('[svc-sdk] inbox: the worker running it died 3 times (its process exited, or hung past lockDuration): a dead letter, not run again (maxWorkerDeaths)');
    expect(listingOf(fakeJob('e') as never, 'dead').lastError).toBeUndefined();
    expect(deadLetterOf(fakeJob('e') as never).lastError).toBe('');
  });

  test('list: oldest stored first across states, at most limit; jobs without an id are skipped', async () => {
    // BullMQ's getJobs can hold undefined for a job removed meanwhile, and a job without an id.
    const queue = fakeQueue([fakeJob('late', { state: 'waiting', data: { body: '{}', receivedAt: 30 } }), fakeJob('early', { state: 'completed', data: { body: '{}', receivedAt: 10 } }), { ...fakeJob('ghost'), id: undefined } as never, { state: 'waiting' } as never]);
    const sparse = { getJobs: async () => [undefined, fakeJob('only', { state: 'waiting' })] } as never;
    expect((await listEntries(sparse, { status: 'waiting' })).map((item) => item.deliveryId)).toEqual(['only']);
    expect((await listEntries(queue, {})).map((item) => [item.deliveryId, item.status])).toEqual([
      ['early', 'completed'],
      ['late', 'waiting'],
    ]);
    expect((await listEntries(queue, { limit: 1 })).map((item) => item.deliveryId)).toEqual(['early']);
    await expect(listEntries(queue, { limit: 1.5 })).rejects.toThrow(/limit must be a whole number ≥ 1 \(got 1\.5\)/);
  });

  test('show: BullMQ\'s prioritized and waiting-children are waiting, failed is dead, an unknown state waiting; worker deaths 0 when unset', async () => {
    const states: Array<[string, string]> = [
      ['prioritized', 'waiting'],
      ['waiting-children', 'waiting'],
      ['failed', 'dead'],
      ['delayed', 'delayed'],
      ['unknown', 'waiting'],
    ];
    for (const [state, status] of states) {
      const shown = await showEntry(fakeQueue([fakeJob('s', { state })]), 's');
      expect(shown?.status).toBe(status);
      expect(shown?.workerDeaths).toBe(0);
    }
    expect((await showEntry(fakeQueue([fakeJob('s', { stalledCounter: 2 })]), 's'))?.workerDeaths).toBe(2);
    const notADelivery = await showEntry(fakeQueue([fakeJob('s', { data: { body: 'not json', receivedAt: 0 } })]), 's');
    expect([notADelivery?.event, notADelivery?.body]).toEqual([undefined, 'not json']);
    await expect(showEntry(fakeQueue([]), 5 as never)).rejects.toThrow(/pass a delivery id/);
  });

  test('replay: attempts and starts reset, from the state it is in; worker deaths reset first; one that moved meanwhile is skipped', async () => {
    const dead = fakeJob('d1', { data: { body: '{}', receivedAt: 1 } });
    const done = fakeJob('p1', { state: 'completed', data: { body: '{}', receivedAt: 2 } });
    const moved = fakeJob('m1', { data: { body: '{}', receivedAt: 3 }, retry: async () => Promise.reject(new Error('Job is not in the failed state')) });
    const reset: string[] = [];
    const queue = fakeQueue([dead, done, moved]);
    expect(await replayEntries(queue, 'd1', 24, async (job) => void reset.push(job.id ?? ''))).toEqual(['d1']);
    expect(dead.retried).toEqual([['failed', { resetAttemptsMade: true, resetAttemptsStarted: true }]]);
    expect(await replayEntries(queue, 'p1', 24, async () => {})).toEqual(['p1']);
    expect(done.retried).toEqual([['completed', { resetAttemptsMade: true, resetAttemptsStarted: true }]]);
    expect(await replayEntries(queue, { all: true }, 24, async (job) => void reset.push(job.id ?? ''))).toEqual(['d1']);
    expect(dead.retried).toHaveLength(2);
    expect(await replayEntries(queue, { status: ['dead', 'completed'] }, 24, async () => {})).toEqual(['d1', 'p1']);
    expect(done.retried[1]).toEqual(['completed', { resetAttemptsMade: true, resetAttemptsStarted: true }]);
    expect(reset).toEqual(['d_d1', 'd_d1', 'd_m1']);
    await expect(replayEntries(queue, '', 24, async () => {})).rejects.toThrow('[svc-sdk] inbox.replay: no delivery "" in the inbox (processed ones are kept 24 h)');
    await expect(replayEntries(queue, 7 as never, 24, async () => {})).rejects.toThrow('(got number)');
    await expect(replayEntries(queue, { kind: 'ping.test', dryRun: false }, 24, async () => {})).resolves.toEqual(['d1']);
    const active = fakeJob('a1', { state: 'active' });
    await expect(replayEntries(fakeQueue([active]), 'a1', 24, async () => {})).rejects.toThrow(/is running now/);
    await expect(replayEntries(fakeQueue([fakeJob('x', { state: 'unknown' })]), 'x', 24, async () => {})).rejects.toThrow(/is not finished/);
    await expect(replayEntries(fakeQueue([fakeJob('y', { state: 'delayed' })]), 'y', 24, async () => {})).rejects.toThrow(/is delayed/);
    await expect(replayEntries(fakeQueue([fakeJob('z', { state: 'prioritized' })]), 'z', 24, async () => {})).rejects.toThrow(/"z" is waiting/);
    await expect(replayEntries(fakeQueue([fakeJob('w', { state: 'waiting-children' })]), 'w', 24, async () => {})).rejects.toThrow(/"w" is waiting/);
    await expect(replayEntries(queue, null as never, 24, async () => {})).rejects.toThrow('(got null)');
    // A bad field of a filter is said as replay's.
    await expect(replayEntries(queue, { since: 'soon' }, 24, async () => {})).rejects.toThrow('[svc-sdk] inbox.replay: since must be a Date');
    // since or until alone narrow enough.
    expect(await replayEntries(queue, { since: 2, dryRun: true }, 24, async () => {})).toEqual(['m1']);
    expect(await replayEntries(queue, { until: 2, dryRun: true }, 24, async () => {})).toEqual(['d1']);
    expect(active.retried).toEqual([]);
  });
});

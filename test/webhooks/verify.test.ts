import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ENTRIES } from './entries.js';

/** The independent implementation every result is checked against. */
const expected = (body: string | Uint8Array, secret: string) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

const SECRET = 'whsec_test_secret';
const BODY = '{"event":"ping.test","version":"1.0","delivery_id":"d1","timestamp":"2026-01-01T00:00:00.000Z","data":{}}';

const VECTORS: Array<[string, string | Uint8Array, string]> = [
  ['an empty body', '', SECRET],
  ['a JSON envelope', BODY, SECRET],
  ['non-ASCII text (UTF-8)', '{"note":"café ✓ 😀"}', SECRET],
  ['a non-ASCII secret', BODY, 'sécret-✓'],
  ['a one-character secret', BODY, 'k'],
  ['a secret longer than the SHA-256 block (64 bytes)', BODY, 'x'.repeat(200)],
  ['binary bytes, not valid UTF-8', new Uint8Array([0xff, 0xfe, 0x00, 0x80, 0xc3]), SECRET],
  ['a 1 MiB body', 'a'.repeat(1 << 20), SECRET],
];

describe.each(ENTRIES)('%s entry', (_name, sdk) => {
  describe('signPayload(rawBody, secret)', () => {
    test.each(VECTORS)('matches node:crypto createHmac for %s', async (_case, body, secret) => {
      expect(await sdk.signPayload(body, secret)).toBe(expected(body, secret));
    });

    test("matches GitHub's published vector", async () => {
      expect(await sdk.signPayload('Hello, World!', "It's a Secret to Everybody")).toBe(
        'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
      );
    });

    test('throws a [svc-sdk] TypeError for an empty secret or a parsed body', async () => {
      await expect(sdk.signPayload(BODY, '')).rejects.toThrow(/^\[svc-sdk\] signPayload: secret/);
      await expect(sdk.signPayload({ a: 1 } as never, SECRET)).rejects.toThrow(/^\[svc-sdk\] signPayload: rawBody/);
    });
  });

  describe('verifySignature(rawBody, header, secret)', () => {
    test.each(VECTORS)('accepts the node:crypto signature for %s', async (_case, body, secret) => {
      expect(await sdk.verifySignature(body, expected(body, secret), secret)).toBe(true);
    });

    test("accepts GitHub's published vector", async () => {
      const header = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
      expect(await sdk.verifySignature('Hello, World!', header, "It's a Secret to Everybody")).toBe(true);
    });

    test('accepts the same bytes as a string, Uint8Array, Buffer, ArrayBuffer, a sliced view and a DataView', async () => {
      const header = expected(BODY, SECRET);
      const bytes = new TextEncoder().encode(BODY);
      const padded = new Uint8Array(bytes.length + 8);
      padded.set(bytes, 4);
      // Not in RawBody's type, but any view of the bytes reads the same on both entries.
      const dataView = new DataView(padded.buffer, 4, bytes.length) as unknown as Uint8Array;
      for (const body of [BODY, bytes, Buffer.from(BODY), bytes.buffer, padded.subarray(4, 4 + bytes.length), dataView]) {
        expect(await sdk.verifySignature(body, header, SECRET)).toBe(true);
      }
    });

    test('rejects a re-serialized body (what a JSON body parser does)', async () => {
      const header = expected(BODY, SECRET);
      expect(await sdk.verifySignature(JSON.stringify(JSON.parse(BODY), null, 2), header, SECRET)).toBe(false);
      expect(await sdk.verifySignature(`${BODY}\n`, header, SECRET)).toBe(false);
    });

    test('answers false, without throwing, for a detached ArrayBuffer or a view of one', async () => {
      const buffer = new TextEncoder().encode(BODY).buffer;
      const view = new Uint8Array(buffer);
      structuredClone(buffer, { transfer: [buffer] }); // detaches `buffer` (and `view`'s memory), as postMessage would
      expect(await sdk.verifySignature(buffer, expected(BODY, SECRET), SECRET)).toBe(false);
      expect(await sdk.verifySignature(view, expected(BODY, SECRET), SECRET)).toBe(false);
      await expect(sdk.verifyWebhook(buffer, expected(BODY, SECRET), SECRET)).rejects.toThrow(/the body must be the raw request body/);
    });

    test('verifies a body in a SharedArrayBuffer, or answers false where the back end refuses one (Web Crypto), never throws', async () => {
      const bytes = new TextEncoder().encode(BODY);
      const shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
      shared.set(bytes);
      // node:crypto hashes it; Web Crypto refuses views on a SharedArrayBuffer, which is junk, not a crash.
      await expect(sdk.verifySignature(shared, expected(BODY, SECRET), SECRET)).resolves.toBe(_name === 'node');
    });

    test('rejects the wrong secret', async () => {
      expect(await sdk.verifySignature(BODY, expected(BODY, SECRET), 'another-secret')).toBe(false);
    });

    const good = expected(BODY, SECRET);
    const hex = good.slice(7);
    test.each([
      ['null', null],
      ['undefined', undefined],
      ['a number', 42],
      ['an array holding the right header (a repeated header)', [good]],
      ['an object', { toString: () => good }],
      ['an empty string', ''],
      ['the prefix alone', 'sha256='],
      ['no prefix', hex],
      ['a sha1= prefix', `sha1=${hex}`],
      ['an upper-case prefix', `SHA256=${hex}`],
      ['upper-case hex', `sha256=${hex.toUpperCase()}`],
      ['a leading space', ` ${good}`],
      ['a trailing newline', `${good}\n`],
      ['an odd length (63)', good.slice(0, -1)],
      ['65 hex digits', `${good}0`],
      ['128 hex digits', `sha256=${hex}${hex}`],
      ['a non-hex character', `${good.slice(0, -1)}g`],
      ['two signatures joined by a comma', `${good},${good}`],
      ['the right digest in base64', `sha256=${Buffer.from(hex, 'hex').toString('base64')}`],
    ])('returns false, without throwing, for a header that is %s', async (_case, header) => {
      await expect(sdk.verifySignature(BODY, header as never, SECRET)).resolves.toBe(false);
    });

    // Each header is signed under the very secret passed, so only the refusal of unusable secrets
    // can make these false (a header signed under another secret would fail for the wrong reason).
    test.each([
      ['an empty secret', ''],
      ['an array of empty strings', ['', '']],
    ])('returns false for %s, even with a header signed under it', async (_case, secret) => {
      const signedUnderEmpty = expected(BODY, '');
      await expect(sdk.verifySignature(BODY, signedUnderEmpty, secret as never)).resolves.toBe(false);
    });

    test.each([
      ['an empty array', []],
      ['null', null],
      ['a number', 7],
    ])('returns false for %s as the secret', async (_case, secret) => {
      await expect(sdk.verifySignature(BODY, good, secret as never)).resolves.toBe(false);
    });

    test.each([
      ['null', null],
      ['a parsed object', JSON.parse(BODY)],
      ['a number', 1],
    ])('returns false for %s as the body', async (_case, body) => {
      await expect(sdk.verifySignature(body as never, good, SECRET)).resolves.toBe(false);
    });

    test('accepts any of several secrets (rotation) and none of the wrong ones', async () => {
      const oldSecret = 'old-secret';
      const newSecret = 'new-secret';
      expect(await sdk.verifySignature(BODY, expected(BODY, oldSecret), [newSecret, oldSecret])).toBe(true);
      expect(await sdk.verifySignature(BODY, expected(BODY, newSecret), [newSecret, oldSecret])).toBe(true);
      expect(await sdk.verifySignature(BODY, expected(BODY, 'third'), [newSecret, oldSecret])).toBe(false);
      expect(await sdk.verifySignature(BODY, expected(BODY, oldSecret), ['', oldSecret])).toBe(true);
    });

    test('property: agrees with node:crypto on random bodies and secrets', async () => {
      await fc.assert(
        fc.asyncProperty(fc.uint8Array({ maxLength: 512 }), fc.string({ minLength: 1 }), async (body, secret) => {
          expect(await sdk.verifySignature(body, expected(body, secret), secret)).toBe(true);
        }),
        { numRuns: 200 },
      );
    });

    test('property: a single flipped bit in the body or the signature fails', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.uint8Array({ minLength: 1, maxLength: 256 }),
          fc.nat(),
          fc.integer({ min: 0, max: 7 }),
          fc.boolean(),
          async (body, at, bit, inSignature) => {
            const header = expected(body, SECRET);
            if (inSignature) {
              const digest = Buffer.from(header.slice(7), 'hex');
              digest[at % 32]! ^= 1 << bit;
              expect(await sdk.verifySignature(body, `sha256=${digest.toString('hex')}`, SECRET)).toBe(false);
            } else {
              const flipped = body.slice();
              flipped[at % body.length]! ^= 1 << bit;
              expect(await sdk.verifySignature(flipped, header, SECRET)).toBe(false);
            }
          },
        ),
        { numRuns: 200 },
      );
    });

    test('property: random headers, bodies and secrets never throw', async () => {
      const anything = fc.oneof(fc.anything(), fc.string(), fc.uint8Array(), fc.constant(undefined));
      await fc.assert(
        fc.asyncProperty(anything, anything, anything, async (body, header, secret) => {
          await expect(sdk.verifySignature(body as never, header as never, secret as never)).resolves.toBeTypeOf('boolean');
        }),
        { numRuns: 300 },
      );
      await fc.assert(
        fc.asyncProperty(fc.string(), async (tail) => {
          expect(await sdk.verifySignature(BODY, `sha256=${tail}`, SECRET)).toBe(tail === hex);
        }),
      );
    });
  });

  describe('verifyWebhook(rawBody, header, secret)', () => {
    const envelope = {
      event: 'credit.low',
      version: '1.0',
      delivery_id: '0b9f5c1e-3d0a-4a57-9b1e-4f8b8f5a1c2d',
      timestamp: new Date().toISOString(),
      data: { balance: 90, threshold: 100 },
    };
    const sign = (value: unknown) => {
      const body = JSON.stringify(value);
      return [body, expected(body, SECRET)] as const;
    };

    test('returns the parsed event for a good signature', async () => {
      const [body, header] = sign(envelope);
      const event = await sdk.verifyWebhook(Buffer.from(body), header, SECRET);
      expect(event).toEqual(envelope);
      if (event.event === 'credit.low') expect(event.data.balance).toBe(90);
    });

    test('returns an event of an unknown kind with its data', async () => {
      const [body, header] = sign({ ...envelope, event: 'fund.closed', data: { fund_id: 3 } });
      const event = await sdk.verifyWebhook(body, header, [SECRET]);
      expect(event.event).toBe('fund.closed');
      expect(event.data).toEqual({ fund_id: 3 });
    });

    test.each([
      ['a missing header', undefined, SECRET, /header is missing/],
      ['a null header', null, SECRET, /header is missing/],
      ['a malformed header', 'sha256=abc', SECRET, /not sha256=<64 lowercase hex digits>/],
      ['a wrong signature', expected('other', SECRET), SECRET, /does not match/],
      ['an empty secret, with a header signed under it', expected(JSON.stringify(envelope), ''), '', /no secret given/],
    ])('throws WebhookVerificationError for %s', async (_case, header, secret, message) => {
      const error = await sdk.verifyWebhook(JSON.stringify(envelope), header, secret).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(sdk.WebhookVerificationError);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).name).toBe('WebhookVerificationError');
      expect((error as Error).message).toMatch(/^\[svc-sdk\] webhook not verified: /);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain(SECRET);
    });

    test.each([
      ['a missing header', undefined, SECRET, 'missing_signature'],
      ['a malformed header', 'sha256=abc', SECRET, 'invalid_signature'],
      ['a wrong signature', expected('other', SECRET), SECRET, 'invalid_signature'],
      ['an empty secret', expected(JSON.stringify(envelope), ''), '', 'no_secret'],
    ])('gives %s its reason code', async (_case, header, secret, reason) => {
      const error = await sdk.verifyWebhook(JSON.stringify(envelope), header, secret).catch((e: unknown) => e);
      expect(error).toMatchObject({ reason });
    });

    test('throws WebhookVerificationError naming the fix for an already parsed body (express.json())', async () => {
      const error = await sdk.verifyWebhook(envelope as never, expected(JSON.stringify(envelope), SECRET), SECRET).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(sdk.WebhookVerificationError);
      expect(error).toMatchObject({ reason: 'unreadable_body' });
      expect((error as Error).message).toMatch(/already parsed object \(express\.json\(\).*express\.raw\(\{ type: 'application\/json' \}\)/);
    });

    test('throws WebhookVerificationError naming the fix for an undefined body (express.raw({ type }) that did not match)', async () => {
      const error = await sdk.verifyWebhook(undefined as never, expected(JSON.stringify(envelope), SECRET), SECRET).catch((e: unknown) => e);
      expect(error).toMatchObject({ reason: 'unreadable_body' });
      expect((error as Error).message).toMatch(/the body is undefined: with express\.raw\(\{ type \}\), the type must match/);
      expect((error as Error).message).toMatch(/toNodeListener/);
    });

    describe('the replay window', () => {
      const MINUTE = 60_000;
      const HOUR = 60 * MINUTE;
      const at = (ms: number) => new Date(Date.now() + ms).toISOString();
      const verifyAt = (timestamp: unknown, options?: { tolerance?: number | false | undefined }) => {
        const [body, header] = sign({ ...envelope, timestamp });
        return sdk.verifyWebhook(body, header, SECRET, options);
      };
      const reasonOf = (promise: Promise<unknown>) =>
        promise.then(
          () => 'accepted',
          (error: unknown) => (error instanceof sdk.WebhookVerificationError ? error.reason : error),
        );

      test('accepts a delivery from 11 h 59 min ago and up to 5 minutes ahead (default tolerance 12 h)', async () => {
        expect(await reasonOf(verifyAt(at(-12 * HOUR + MINUTE)))).toBe('accepted');
        expect(await reasonOf(verifyAt(at(0)))).toBe('accepted');
        expect(await reasonOf(verifyAt(at(5 * MINUTE - 2000)))).toBe('accepted');
        // The same instant with an offset instead of Z, and with seconds only.
        const now = new Date(Date.now() + 14 * HOUR).toISOString().slice(0, -1);
        expect(await reasonOf(verifyAt(`${now}+14:00`))).toBe('accepted');
        expect(await reasonOf(verifyAt(`${at(0).slice(0, 19)}Z`))).toBe('accepted');
      });

      test.each([
        ['12 h and 1 minute old', () => at(-12 * HOUR - MINUTE), 'stale_timestamp', /older than the tolerance/],
        ['stamped 2001', () => '2001-09-09T01:46:40.000Z', 'stale_timestamp', /older than the tolerance/],
        ['6 minutes ahead', () => at(6 * MINUTE), 'future_timestamp', /more than 5 minutes ahead/],
        ['stamped 2999', () => '2999-01-01T00:00:00.000Z', 'future_timestamp', /more than 5 minutes ahead/],
        ['stamped "not a date"', () => 'not a date', 'invalid_timestamp', /not an ISO 8601 date and time with Z or an offset/],
        ['stamped now without a zone (read as local time, it would depend on the machine)', () => at(0).slice(0, -1), 'invalid_timestamp', /with Z or an offset/],
        ['stamped now without a zone nor milliseconds', () => at(0).slice(0, 19), 'invalid_timestamp', /with Z or an offset/],
        ['stamped as an HTTP date', () => new Date().toUTCString(), 'invalid_timestamp', /with Z or an offset/],
      ])('refuses a correctly signed delivery %s with a WebhookVerificationError and its reason', async (_case, stamp, reason, message) => {
        const error = await verifyAt(stamp()).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(sdk.WebhookVerificationError);
        expect(error).toMatchObject({ reason, message: expect.stringMatching(message) });
        expect((error as Error).message).toMatch(/^\[svc-sdk\] webhook not verified: /);
      });

      test('honours a tolerance in ms', async () => {
        expect(await reasonOf(verifyAt(at(-59 * MINUTE), { tolerance: HOUR }))).toBe('accepted');
        expect(await reasonOf(verifyAt(at(-61 * MINUTE), { tolerance: HOUR }))).toBe('stale_timestamp');
        expect(await reasonOf(verifyAt(at(-13 * HOUR), { tolerance: 24 * HOUR }))).toBe('accepted');
      });

      test('tolerance: false turns the window off (old, future and unparsable timestamps pass)', async () => {
        for (const stamp of ['2001-09-09T01:46:40.000Z', '2999-01-01T00:00:00.000Z', 'not a date']) {
          expect(await reasonOf(verifyAt(stamp, { tolerance: false }))).toBe('accepted');
        }
        expect(await reasonOf(verifyAt(at(-13 * HOUR), { tolerance: undefined }))).toBe('stale_timestamp');
      });

      test.each([[-1], [Number.NaN], ['12h'], [true]])('throws a [svc-sdk] TypeError for tolerance %o', async (tolerance) => {
        await expect(verifyAt(at(0), { tolerance: tolerance as never })).rejects.toThrow(
          /^\[svc-sdk\] verifyWebhook: options\.tolerance must be a number of ms >= 0, or false/,
        );
      });

      test('checks the signature before the timestamp: a forged old delivery is a signature failure', async () => {
        const body = JSON.stringify({ ...envelope, timestamp: '2001-09-09T01:46:40.000Z' });
        const error = await sdk.verifyWebhook(body, expected(body, 'attacker'), SECRET).catch((e: unknown) => e);
        expect(error).toMatchObject({ reason: 'invalid_signature' });
      });
    });

    test.each([
      ['not JSON', 'not json', /the body must be a JSON object/],
      ['a JSON array', [envelope], /must be a JSON object/],
      ['JSON null', null, /must be a JSON object/],
      ['missing event', { ...envelope, event: undefined }, /"event" must be a non-empty string/],
      ['a numeric version', { ...envelope, version: 1 }, /"version" must be a non-empty string/],
      ['missing delivery_id', { ...envelope, delivery_id: undefined }, /"delivery_id"/],
      ['an empty delivery_id', { ...envelope, delivery_id: '' }, /"delivery_id"/],
      ['a numeric timestamp', { ...envelope, timestamp: 0 }, /"timestamp"/],
      ['missing data', { ...envelope, data: undefined }, /"data" must be an object/],
      ['data as an array', { ...envelope, data: [] }, /"data" must be an object/],
      ['data as null', { ...envelope, data: null }, /"data" must be an object/],
    ])('throws WebhookPayloadError for a signed body that is %s', async (_case, value, message) => {
      const body = typeof value === 'string' ? value : JSON.stringify(value);
      const error = await sdk.verifyWebhook(body, expected(body, SECRET), SECRET).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(sdk.WebhookPayloadError);
      expect(error).not.toBeInstanceOf(sdk.WebhookVerificationError);
      expect((error as Error).message).toMatch(/^\[svc-sdk\] not a webhook delivery: /);
      expect((error as Error).message).toMatch(message);
    });
  });
});

describe('the two entries', () => {
  test('export the same names', () => {
    const [[, node], [, web]] = ENTRIES;
    expect(Object.keys(node).sort()).toEqual(Object.keys(web).sort());
  });

  test('share their error classes, which extend SvcError', async () => {
    const [[, node], [, web]] = ENTRIES;
    const { SvcError } = await import('../../src/shared/svc-error.js');
    expect(node.WebhookVerificationError).toBe(web.WebhookVerificationError);
    expect(node.WebhookPayloadError).toBe(web.WebhookPayloadError);
    expect(new web.WebhookVerificationError('x')).toBeInstanceOf(SvcError);
    expect(new web.WebhookPayloadError('x')).toBeInstanceOf(SvcError);
  });

  test('sign identically, and each verifies the other', async () => {
    const [[, node], [, web]] = ENTRIES;
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.string({ minLength: 1 }), async (body, secret) => {
        const signature = await node.signPayload(body, secret);
        expect(await web.signPayload(body, secret)).toBe(signature);
        expect(await web.verifySignature(body, signature, secret)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});

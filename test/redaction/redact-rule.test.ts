// The one redaction rule (src/shared/redact.ts), table by table: which names are credentials, what
// of a URL is kept byte for byte, how a path becomes a low-cardinality name, what of a body stays.
import { describe, expect, it } from 'vitest';
import { hasSecretValue, isCredentialName, redactBody, redactEveryString, redactSecretValues, redactUrl, templatePath } from '../../src/shared/redact.js';

/** Names the rule calls credentials: each also checked through redactUrl (whose quick pre-check must let every one through). */
const CREDENTIAL_NAMES = [
  'token', 'access_token', 'accessToken', 'id_token', 'refresh-token', 'X-Amz-Security-Token', 'oauth_token', 'tokens',
  'key', 'api_key', 'ApiKey', 'apikey', 'x-api-key', 'AWSAccessKeyId', 'private_key', 'signing_key',
  'secret', 'client_secret', 'new_secret', 'SECRET',
  'signature', 'Signature', 'X-Goog-Signature', 'sig',
  'password', 'passwd', 'pass', 'pwd', 'user_password',
  'auth', 'authorization', 'x_auth', 'auth[token]',
  'jwt', 'sid', 'session', 'sessionId', 'PHPSESSID', 'code', 'auth_code', 'otp', 'credentials', 'cookie', 'hmac', 'nonce', 'ticket',
  'bearer_value', 'accesskey', 'privatekey', 'authorize_with',
];

describe('isCredentialName', () => {
  it.each(CREDENTIAL_NAMES)('%s is a credential, and its value is hidden in a URL (its name as written, or %-escaped)', (name) => {
    expect(isCredentialName(name)).toBe(true);
    expect(redactUrl(`https://svc.test/a?page=1&${name}=v1&q=2`)).toBe(`https://svc.test/a?page=1&${name}=[redacted]&q=2`);
    const escaped = [...name].map((char) => `%${char.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
    expect(redactUrl(`https://svc.test/a?${escaped}=v1`)).toBe(`https://svc.test/a?${escaped}=[redacted]`);
  });

  it.each(['q', 'page', 'deal_id', 'room_type', 'cursor', 'keyword', 'monkey', 'design', 'inside', 'author', 'barcode', 'passthrough', 'limit', 'event_types', ''])(
    '%s is not',
    (name) => {
      expect(isCredentialName(name)).toBe(false);
    },
  );
});

describe('secret-looking values', () => {
  it.each([
    ['vdr_live_0123456789', true],
    ['whsec_abcdef', true],
    ['sha256=0123456789abcdef0123', true],
    ['Bearer abc.def-ghi', true],
    ['the key was vdr_x1 and more', true],
    ['sha256=short', false],
    ['vdr', false],
    ['a webhook secret', false],
  ])('%s: %s', (text, secret) => {
    expect(hasSecretValue(text)).toBe(secret);
    // Asked twice: no state is kept between tests of the same pattern.
    expect(hasSecretValue(text)).toBe(secret);
  });

  it('each one is replaced in a text, the words around them kept', () => {
    expect(redactSecretValues('key vdr_a1 and whsec_b2, sent as Bearer vdr_c3; sha256=00112233445566778899 ok')).toBe(
      'key [redacted] and [redacted], sent as [redacted]; [redacted] ok',
    );
    expect(redactSecretValues('nothing here', 'X')).toBe('nothing here');
    expect(redactSecretValues('vdr_a1', 'X')).toBe('X');
  });
});

describe('redactUrl', () => {
  it.each([
    ['https://svc.test/api/v1/rooms', 'https://svc.test/api/v1/rooms'],
    ['https://svc.test/api/v1/rooms?page=2&q=a+b', 'https://svc.test/api/v1/rooms?page=2&q=a+b'],
    ['https://svc.test/a?access_token=t1&q=%20x&jwt=t2', 'https://svc.test/a?access_token=[redacted]&q=%20x&jwt=[redacted]'],
    ['https://svc.test/a?sid=1;session=2&code=3', 'https://svc.test/a?sid=[redacted];session=[redacted]&code=[redacted]'],
    ['https://svc.test/a?access%5Ftoken=t1&Api-Key=k', 'https://svc.test/a?access%5Ftoken=[redacted]&Api-Key=[redacted]'],
    ['https://svc.test/a?x=vdr_live_1&y=whsec%5Fz&z=plain', 'https://svc.test/a?x=[redacted]&y=[redacted]&z=plain'],
    ['https://svc.test/a?token&flag', 'https://svc.test/a?token&flag'],
    ['https://svc.test/a?vdr_live_1&flag', 'https://svc.test/a?[redacted]&flag'],
    ['https://svc.test/a?q=token&note=secret&whsec_hint=none', 'https://svc.test/a?q=token&note=secret&whsec_hint=none'],
    ['https://svc.test/a?my+key=v&x=a+b', 'https://svc.test/a?my+key=[redacted]&x=a+b'],
    ['https://svc.test/a?%E0%A4%A=v&b=%E0%A4%A', 'https://svc.test/a?%E0%A4%A=v&b=%E0%A4%A'],
    ['https://svc.test/a?token=x#code=y', 'https://svc.test/a?token=[redacted]#code=[redacted]'],
    ['https://svc.test/a#frag?token=x', 'https://svc.test/a#frag?token=[redacted]'],
    ['https://svc.test/a?bad=%E0%A4%A&token=x', 'https://svc.test/a?bad=%E0%A4%A&token=[redacted]'],
    ['https://svc.test/cb#access_token=t1&state=s', 'https://svc.test/cb#access_token=[redacted]&state=s'],
    ['https://user:pa55@svc.test/a?page=1', 'https://[redacted]:[redacted]@svc.test/a?page=1'],
    ['https://tok_abc@svc.test/a', 'https://[redacted]@svc.test/a'],
    ['https://svc.test/a/b@c', 'https://svc.test/a/b@c'],
    ['https://svc.test/@me', 'https://svc.test/@me'],
    ['https://u:p@svc.test', 'https://[redacted]:[redacted]@svc.test'],
    ['/rooms?access_token=t1', '/rooms?access_token=[redacted]'],
    ['GET /rooms?token=t1', 'GET /rooms?token=[redacted]'],
    ['rooms.create', 'rooms.create'],
  ])('%s → %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });

  it('writes the marker it is given (url.full: REDACTED), and is its own fixed point', () => {
    expect(redactUrl('https://u:p@svc.test/a?token=x', 'REDACTED')).toBe('https://REDACTED:REDACTED@svc.test/a?token=REDACTED');
    const once = redactUrl('https://u:p@svc.test/a?token=x&q=1');
    expect(redactUrl(once)).toBe(once);
  });
});

describe('templatePath', () => {
  it.each([
    ['/api/v1/rooms', '/api/v1/rooms'],
    ['/api/v1/rooms/{room_id}/documents', '/api/v1/rooms/{room_id}/documents'],
    ['/api/v1/rooms/42/documents', '/api/v1/rooms/{id}/documents'],
    ['/api/v1/share/3f2c9a1e-8b7d-4c6e-9f0a-1b2c3d4e5f60', '/api/v1/share/{id}'],
    ['/api/v1/share/3F2C9A1E-8B7D-4C6E-9F0A-1B2C3D4E5F60/view', '/api/v1/share/{id}/view'],
    ['/api/v1/links/aB3dE5gH7jK9mN1pQ', '/api/v1/links/{id}'],
    ['/api/v1/webhooks/rotate-secret-now', '/api/v1/webhooks/rotate-secret-now'],
    ['/api/v1/transactions-and-deals', '/api/v1/transactions-and-deals'],
    ['/api/v1/rooms?access_token=t1', '/api/v1/rooms'],
    ['/api/v1/rooms#frag', '/api/v1/rooms'],
    ['/api/v1/rooms#frag?x=1', '/api/v1/rooms'],
    ['/api/v1/rooms?x=1#frag', '/api/v1/rooms'],
    ['GET /rooms/7?token=t', 'GET /rooms/{id}'],
    ['rooms.create', 'rooms.create'],
  ])('%s → %s', (path, template) => {
    expect(templatePath(path)).toBe(template);
  });
});

describe('redactBody', () => {
  it('keeps a refusal’s reason and hides credentials by name and by look, at any depth', () => {
    const body = {
      error: 'invalid',
      message: 'url must use https',
      detail: 'sent with Bearer vdr_leaked_1',
      code: 'bad_url',
      errors: { url: ['must use https'], secret: ['too short'] },
      endpoint: { id: 3, secret: 'whsec_1', signing_key: 'plain', nested: [{ token: 't', note: 'n' }] },
      count: 2,
      ok: false,
      none: null,
    };
    expect(redactBody(body)).toEqual({
      error: 'invalid',
      message: 'url must use https',
      detail: 'sent with [redacted]',
      code: 'bad_url',
      errors: { url: ['must use https'], secret: '[redacted]' },
      endpoint: { id: 3, secret: '[redacted]', signing_key: '[redacted]', nested: [{ token: '[redacted]', note: 'n' }] },
      count: 2,
      ok: false,
      none: null,
    });
    expect(body.endpoint.secret).toBe('whsec_1'); // a copy: the answer itself is untouched
  });

  it('a text keeps its words, its credential-named pairs and secret-looking values hidden (a pair cut short too)', () => {
    expect(redactBody('bad gateway: {"id":3,"secret":"abc","name":"kept","signing_key": "x\\"y"')).toBe(
      'bad gateway: {"id":3,"secret":"[redacted]","name":"kept","signing_key": "[redacted]"',
    );
    expect(redactBody('cut: {"secret":"abc')).toBe('cut: {"secret":"[redacted]"');
    expect(redactBody('{"code":"kept"} whsec_1')).toBe('{"code":"kept"} [redacted]');
    expect(redactBody('plain text')).toBe('plain text');
    expect(redactBody(undefined)).toBeUndefined();
    expect(redactBody(7)).toBe(7);
  });

  it('deeper than 16 levels a branch is replaced whole; at 16 it is walked', () => {
    let deep: unknown = 'x';
    for (let level = 0; level < 20; level++) deep = { down: deep };
    let branch = redactBody(deep);
    for (let level = 0; level < 17; level++) branch = (branch as { down: unknown }).down;
    expect(branch).toBe('[redacted]');
    let kept = redactBody({ a: { b: 'c' } }) as { a: { b: string } };
    expect(kept.a.b).toBe('c');
    kept = redactBody([[{ b: 'c' }]]) as never;
    expect(kept).toEqual([[{ b: 'c' }]]);
    // Arrays count as levels too: 20 nested arrays are cut at the same depth, for both walks.
    let list: unknown = 'x';
    for (let level = 0; level < 20; level++) list = [list];
    for (const walked of [redactBody(list), redactEveryString(list)]) {
      let item = walked;
      for (let level = 0; level < 17; level++) item = (item as unknown[])[0];
      expect(item).toBe('[redacted]');
    }
  });
});

describe('redactEveryString', () => {
  it('replaces every string and credential-named field, keeps keys, numbers, booleans and nulls', () => {
    expect(redactEveryString({ id: 'x', n: 1, ok: true, none: null, list: ['a', 2], secret: ['s'], deep: { note: 'n' } })).toEqual({
      id: '[redacted]',
      n: 1,
      ok: true,
      none: null,
      list: ['[redacted]', 2],
      secret: '[redacted]',
      deep: { note: '[redacted]' },
    });
    expect(redactEveryString('text')).toBe('[redacted]');
    expect(redactEveryString(3)).toBe(3);
  });
});

// The Lua scripts of the Redis ledger store: each change of the ledger is one of them, so it is
// atomic (Redis runs a script alone). Kept apart so that bench/actions-ledger.mjs runs the very
// same text bare, as the floor the store is measured against. Keys derived inside a script (the
// queues of handler names) keep the store to one Redis, not a cluster.

/**
 * One ledger change. KEYS: document, delivery seen, pending index, run index, decided queue,
 * decision sequence, handler names. ARGV: version read, new text ('' for none), seen TTL ms,
 * pending op ('add' | 'remove' | ''), pending score, action id, '1' to index the run, '1' for a
 * new decision, prefix of the handlers' queues, notification channel. A document is stored as
 * `<version>:<json>`.
 */
export const COMMIT_SCRIPT = `
if redis.call('EXISTS', KEYS[2]) == 1 then return 'duplicate' end
local current = redis.call('GET', KEYS[1])
local version = 0
if current then version = tonumber(string.match(current, '^(%d+):')) end
if version ~= tonumber(ARGV[1]) then return 'conflict' end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
if ARGV[2] ~= '' then redis.call('SET', KEYS[1], (version + 1) .. ':' .. ARGV[2]) end
if ARGV[4] == 'add' then redis.call('ZADD', KEYS[3], ARGV[5], ARGV[6]) elseif ARGV[4] == 'remove' then redis.call('ZREM', KEYS[3], ARGV[6]) end
if ARGV[7] == '1' then redis.call('SADD', KEYS[4], ARGV[6]) end
if ARGV[8] == '1' then
  local sequence = redis.call('INCR', KEYS[6])
  redis.call('ZADD', KEYS[5], sequence, ARGV[6])
  for _, name in ipairs(redis.call('SMEMBERS', KEYS[7])) do redis.call('ZADD', ARGV[9] .. name, sequence, ARGV[6]) end
  redis.call('PUBLISH', ARGV[10], ARGV[6])
end
return 'committed'
`;

/** A handler name's queue: registers the name (a new one is given every decision so far), then its oldest ARGV[2]. KEYS: names, its queue, decided. */
export const TODO_SCRIPT = `
if redis.call('SADD', KEYS[1], ARGV[1]) == 1 then redis.call('ZUNIONSTORE', KEYS[2], 2, KEYS[2], KEYS[3], 'AGGREGATE', 'MAX') end
return redis.call('ZRANGE', KEYS[2], 0, tonumber(ARGV[2]) - 1)
`;

/** Claims a decision for a handler: -1 done, 0 claimed elsewhere, else the run number. KEYS: done, lease, runs, queue. ARGV: action id, token, lease ms. */
export const CLAIM_SCRIPT = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('ZREM', KEYS[4], ARGV[1])
  return -1
end
if not redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[3]) then return 0 end
return redis.call('HINCRBY', KEYS[3], ARGV[1], 1)
`;

/** Extends a lease still held by ARGV[1] by ARGV[2] ms: 1, or 0 when lost. KEYS: lease. */
export const RENEW_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`;

/** Ends a claim: the lease dropped if still ours; with ARGV[2] = '1' recorded done and out of the queue. KEYS: lease, done, queue. ARGV: token, done, action id, time. */
export const FINISH_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
if ARGV[2] == '1' then
  redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
  redis.call('ZREM', KEYS[3], ARGV[3])
end
return 1
`;

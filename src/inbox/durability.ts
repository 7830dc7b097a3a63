// What the inbox asks of Redis before it takes a delivery: that nothing it stored can be evicted,
// and (unless the user accepts the loss knowingly) that it survives a restart. Read from INFO, which
// managed Redis services answer even where CONFIG is disabled.

/** What a Redis INFO text says of the inbox's durability: a refusal, a warning, or nothing. */
export interface DurabilityVerdict {
  /** Why the inbox must not store deliveries here (they could be evicted). */
  readonly refuse?: string;
  /** What could be lost, when the user has not accepted it. */
  readonly warn?: string;
}

/** Who asks and what it keeps, for the messages: the inbox's deliveries by default, the actions ledger's changes. */
export interface DurabilitySubject {
  /** The message's area after `[svc-sdk] `. */
  readonly area: string;
  /** What could vanish under eviction. */
  readonly kept: string;
  /** What is lost since the last snapshot. */
  readonly recent: string;
}

const INBOX: DurabilitySubject = { area: 'inbox', kept: 'stored deliveries', recent: 'deliveries stored' };

/**
 * Reads `maxmemory_policy` and `aof_enabled` from an INFO answer. Any eviction policy but
 * `noeviction` is refused: under memory pressure Redis would drop stored deliveries (or the ids
 * that deduplicate them) without a word. Without an append-only file, what arrived since the last
 * snapshot is lost when Redis stops: a warning naming that window, unless `acceptNoPersistence`.
 */
export function durabilityOf(info: string, acceptNoPersistence: boolean, subject: DurabilitySubject = INBOX): DurabilityVerdict {
  const policy = /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
  if (policy !== undefined && policy !== 'noeviction') {
    return {
      refuse:
        `[svc-sdk] ${subject.area}: Redis evicts keys under memory pressure (maxmemory-policy ${policy}), so ${subject.kept} could vanish: ` +
        'set maxmemory-policy noeviction (redis.conf, or CONFIG SET maxmemory-policy noeviction)',
    };
  }
  if (acceptNoPersistence || /^aof_enabled:1/m.test(info)) return {};
  const saved = Number(/^rdb_last_save_time:(\d+)/m.exec(info)?.[1]);
  const since = saved > 0 ? ` (the last snapshot: ${new Date(saved * 1000).toISOString()})` : '';
  return {
    warn:
      `[svc-sdk] ${subject.area}: Redis has no append-only file (appendonly no): ${subject.recent} since its last snapshot${since} are lost if it stops. ` +
      'Set appendonly yes (appendfsync everysec loses at most a second, always nothing), or pass acceptNoPersistence: true to accept it.',
  };
}

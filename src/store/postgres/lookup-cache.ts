// Short-lived memory caches for the lookups every hot request repeats (a client token's project, a
// project's Meta mappings, a link's campaign). Entries live LOOKUP_CACHE_TTL_MS (set once at start;
// 0 disables them). A write in this process drops the cache it affects at once, and a load that
// overlapped such a write is not kept; other processes see a change within the TTL.
let ttlMs = 1000;
const MAX_ENTRIES = 10_000;

export function setLookupCacheTtl(ms: number): void {
  ttlMs = ms;
}

export type LookupCache<T> = {
  get(key: string, load: () => Promise<T>): Promise<T>;
  /** Drops every entry (a write that may change any of them). */
  clear(): void;
  /** Drops the entries whose value matches. */
  forget(match: (value: T) => boolean): void;
  /** Drops one key's entry. */
  forgetKey(key: string): void;
};

export function lookupCache<T>(keep: (value: T) => boolean = () => true): LookupCache<T> {
  const entries = new Map<string, { until: number; value: T }>();
  let writes = 0;
  return {
    async get(key, load) {
      const now = Date.now();
      const hit = entries.get(key);
      if (hit && hit.until > now) {
        return hit.value;
      }
      const seen = writes;
      const value = await load();
      if (ttlMs > 0 && seen === writes && keep(value)) {
        if (entries.size >= MAX_ENTRIES) {
          entries.clear();
        }
        entries.set(key, { until: now + ttlMs, value });
      }
      return value;
    },
    clear() {
      writes++;
      entries.clear();
    },
    forgetKey(key) {
      writes++;
      entries.delete(key);
    },
    forget(match) {
      writes++;
      for (const [k, e] of entries) {
        if (match(e.value)) {
          entries.delete(k);
        }
      }
    },
  };
}

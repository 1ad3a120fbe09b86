// Request lists for autocannon. Each connection walks its list in order and starts over, so a list
// of a few dozen seeded visits spreads the load over campaigns and devices the same way every run.
import type { HttpRequest } from './load.ts';
import { mobileAgent, type Rng } from './seed.ts';

/** Visits of campaign links `/<display_id>?utm_source=…` from phones, on the service's own host. */
export function linkVisits(rng: Rng, host: string, displayIds: readonly string[], count: number): HttpRequest[] {
  const out: HttpRequest[] = [];
  for (let i = 0; i < count; i++) {
    out.push({
      method: 'GET',
      path: `/${displayIds[i % displayIds.length]}?utm_source=bench`,
      headers: {
        host,
        'user-agent': mobileAgent(rng),
        accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
        'accept-language': 'en-US,en;q=0.9',
      },
    });
  }
  return out;
}

export function jsonPosts(host: string, path: string, bodies: readonly string[]): HttpRequest[] {
  return bodies.map((body) => ({
    method: 'POST',
    path,
    headers: { host, 'content-type': 'application/json', 'user-agent': 'bench-sdk/1.0' },
    body,
  }));
}

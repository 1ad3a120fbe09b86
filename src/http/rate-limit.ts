// Rate limits from the spec's Limits table, as fixed windows: per source IP across /api/v1
// (30/s), and per server key per endpoint group (data 30/s, campaign 10/s, reporting 1/min).
// Counters live in Redis in service mode and in memory in embedded mode. If the counter store
// fails, requests are let through (fail-open) and a warning is logged: availability over limits.
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../deps.ts';
import { RateLimitError } from './errors.ts';

/**
 * export: audience exports, on reporting's rule (1/min per key) with a budget of their own.
 * in-route: the authentication hook takes no budget, the route takes it itself once the request
 * is found valid (audience exports: a refused query must not cost the key its minute).
 */
export type RateLimitGroup = 'data' | 'campaign' | 'reporting' | 'export' | 'in-route';

type Rule = { limit: number; windowMs: number; retryAfter: number };

function ruleFor(deps: Deps, group: Exclude<RateLimitGroup, 'in-route'> | 'ip' | 'client' | 'web'): Rule {
  const r = deps.config.rateLimits;
  switch (group) {
    case 'ip':
      return { limit: r.ipPerSecond, windowMs: 1000, retryAfter: 1 };
    case 'data':
      return { limit: r.dataPerSecond, windowMs: 1000, retryAfter: 1 };
    case 'campaign':
      return { limit: r.campaignPerSecond, windowMs: 1000, retryAfter: 1 };
    case 'reporting':
    case 'export':
      return { limit: r.reportingPerMinute, windowMs: 60_000, retryAfter: 60 };
    case 'client':
      return { limit: r.clientPerSecond, windowMs: 1000, retryAfter: 1 };
    case 'web':
      return { limit: r.webPerSecond, windowMs: 1000, retryAfter: 1 };
  }
}

async function enforce(deps: Deps, rule: Rule, key: string): Promise<void> {
  if (!deps.config.rateLimits.enabled) {
    return;
  }
  let count: number;
  try {
    count = await deps.rateLimits.hit(key, rule.windowMs, deps.now());
  } catch (err) {
    deps.log.warn({ err: String(err) }, 'rate limit store unavailable; request allowed');
    return;
  }
  if (count > rule.limit) {
    throw new RateLimitError(rule.retryAfter);
  }
}

/**
 * onRequest hook for /api/v1: the per-source-IP limit shared by every /api/v1 endpoint. A reporting
 * request it stops says Retry-After: 60 too, as the spec gives for either of reporting's limits.
 */
export function ipRateLimit(deps: Deps) {
  return async (req: FastifyRequest): Promise<void> => {
    const rule = ruleFor(deps, 'ip');
    const reporting = req.routeOptions.url === REPORTING_ROUTE;
    return enforce(deps, reporting ? { ...rule, retryAfter: 60 } : rule, `ip:${req.ip}`);
  };
}

const REPORTING_ROUTE = '/api/v1/reporting/campaigns';

export async function checkKeyRateLimit(
  deps: Deps,
  group: RateLimitGroup,
  projectId: string,
  keyId: number,
): Promise<void> {
  if (group === 'in-route') {
    return;
  }
  // Reporting's 429 always says Retry-After: 60 (spec), whatever remains of the minute. The
  // project id keeps keys of different databases sharing one Redis apart (key ids are serials).
  return enforce(deps, ruleFor(deps, group), `key:${projectId}:${keyId}:${group}`);
}

/** Client endpoints: 25 requests per second per project token (spec: Limits). */
export function checkClientRateLimit(deps: Deps, projectId: string): Promise<void> {
  return enforce(deps, ruleFor(deps, 'client'), `token:${projectId}`);
}

/**
 * Web SDK events (POST /web/ingest): RATE_LIMIT_WEB_PER_SECOND per project, a budget apart from
 * the apps' (a website's visitors all send the project's public token).
 */
export function checkWebRateLimit(deps: Deps, projectId: string): Promise<void> {
  return enforce(deps, ruleFor(deps, 'web'), `web:${projectId}`);
}

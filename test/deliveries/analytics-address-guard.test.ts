// A self-hosted PostHog host is a tenant's choice, so the delivery worker connects only to public
// addresses when it sends (README "Analytics integrations"): a host that resolves to loopback (a
// connection saved before the host rules, or a name whose DNS answer changed after the check)
// ends its rows dead with the reason, unsent and not retried. ANALYTICS_BASE_URL is the operator's
// and is trusted: with it set, requests go there even on loopback (every other analytics test).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attributedInstall } from '../support/client.ts';
import { attemptRows, deliverAt, deliveryEnv, deliveryRows } from '../support/deliveries.ts';
import { connectVendor, FakeAnalytics, signUp } from '../support/fake-analytics.ts';
import { newProject, type TestProject, useHarness } from '../support/harness.ts';

const fake = new FakeAnalytics();
beforeAll(() => fake.start());
afterAll(() => fake.stop());
// No ANALYTICS_BASE_URL: requests go to the stored endpoint.
const h = useHarness({ env: deliveryEnv() });

/** A PostHog connection whose stored endpoint is the fake, reached by the name `localhost`. */
async function postHogOnLoopback(p: TestProject): Promise<void> {
  await connectVendor(h().deps, p, 'posthog');
  const endpoint = `http://localhost:${new URL(fake.url).port}/posthog`;
  await h().deps.sql`
    UPDATE analytics_connections SET endpoint = ${endpoint} WHERE project_id = ${p.project.id} AND vendor = 'posthog'`;
}

async function userQueued(p: TestProject): Promise<string> {
  const { iid } = await attributedInstall(h(), p);
  const distinct = `ph-${randomUUID()}`;
  await signUp(h(), p, iid, { id: `u-${randomUUID()}`, posthog_distinct_id: distinct });
  return distinct;
}

describe('where a tenant-set host resolves', () => {
  it('when the PostHog host resolves to loopback, then the row is dead with the reason, nothing is sent and it is not retried', async () => {
    const p = await newProject(h().deps);
    await postHogOnLoopback(p);
    const distinct = await userQueued(p);

    const out = await deliverAt(h().deps, p, 'analytics:posthog');
    const later = await deliverAt(h().deps, p, 'analytics:posthog', Date.now() + 3_600_000);

    expect(out).toMatchObject({ claimed: 1, sent: 0, dead: 1, retry: false });
    expect(later).toMatchObject({ claimed: 0 });
    const [row] = (await deliveryRows(h().deps, p)).filter((r) => r.destination === 'analytics:posthog');
    expect(row?.status).toBe('dead');
    expect(row?.last_error).toMatch(/^HTTP 0: blocked: localhost resolves to .*not a public address/);
    expect((await attemptRows(h().deps, p)).map((a) => [a.outcome, a.http_status])).toEqual([['dead', 0]]);
    expect(fake.hits.filter((x) => x.body.includes(distinct))).toHaveLength(0);
  });

  it('when the operator set ANALYTICS_BASE_URL on loopback, then the request goes there', async () => {
    const p = await newProject(h().deps);
    await postHogOnLoopback(p);
    const distinct = await userQueued(p);
    const operator = { ...h().deps, config: { ...h().deps.config, analyticsBaseUrl: fake.url } };

    const out = await deliverAt(operator, p, 'analytics:posthog');

    expect(out).toMatchObject({ claimed: 1, sent: 1 });
    expect(fake.hitsOf('posthog').filter((x) => x.body.includes(distinct))).toHaveLength(1);
  });
});

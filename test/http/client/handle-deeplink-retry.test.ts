// handle-deeplink's retry window. README: "the same campaign opened
// again within 3 minutes is an SDK retry and records nothing (the iOS SDK sends one report up to 5
// times, each attempt timing out at 30 s, with 30 s of backoff between them), also when the two
// requests arrive at once." The first attempt can be stored while the install is still pending
// (it becomes the install's link signal) and its answer lost; the install is then decided by that
// link; the SDK's retry of the same report seconds later must not be a re-engagement.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { attribute, attributionFacts, campaignWithListings, flushFacts, init, post } from '../../support/client.ts';
import { newProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

describe('handle-deeplink SDK retry around the decision', () => {
  it('when the first attempt reached a pending install and the retry comes after the link decided it, then no re-engagement is recorded', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const c = await campaignWithListings(deps, p);
    const iid = randomUUID();
    await init(h(), p.token, { install_instance_id: iid });
    const body = {
      token: p.token,
      platform: 'IOS',
      install_instance_id: iid,
      deeplink_url: `https://attr.test/${c.displayId}?ref=ABC`,
      device_data: {},
    };

    const first = await post(h(), 'handle-deeplink', body); // answer lost on the device
    expect(first.json().data.processing).toBe(true);
    expect(await attribute(h(), p, iid)).toMatchObject({ method: 'link', campaignId: c.id });
    const retry = await post(h(), 'handle-deeplink', body); // the SDK's retry, seconds later
    expect(retry.statusCode).toBe(200);

    await flushFacts(h());
    const facts = await attributionFacts(deps, p);
    // Observed: [install, reengagement] — the retry of the report that decided the install is
    // counted as a re-engagement of the campaign that acquired it seconds earlier.
    expect(facts.map((f) => f.kind)).toEqual(['install']);
  });
});

// A held sign-up webhook whose hour of waiting ends just as its install's attribution is decided.
// README "Outgoing deliveries": a sign-up that arrives while its install is being attributed "is
// held and POSTed once the decision fills it in, right after the install's own notification. If
// the install is still undecided an hour later, the row goes `dead` ... and a decision made later
// still sends it."
//
// The delivery job (deliver-batch.ts → settle-held-deliveries.ts) claims the expired row with a
// lease, reads the install's attribution in its own statement, then ends the row dead. The
// decision (attribute-install.ts → release-held-deliveries.ts) releases held rows in its own
// transaction but skips rows under a lease. These tests put the decision at exact points of the
// delivery job (a paused statement), against the real Postgres, and look at what the receiver gets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverBatch } from '../../src/domain/deliveries/deliver-batch.ts';
import { claimDueDeliveries } from '../../src/store/postgres/deliveries.ts';
import { attribute, campaignWithListings } from '../support/client.ts';
import { deliverAt, deliveryEnv, deliveryRows } from '../support/deliveries.ts';
import { FakeWebhook } from '../support/fake-webhook.ts';
import { useHarness } from '../support/harness.ts';
import { bodiesFor, clickedInstall, hookedProject, trigger } from '../support/held-webhooks.ts';
import { gatedBegin, someoneWaitsForALock } from '../support/sql-gates.ts';

const receiver = new FakeWebhook();
beforeAll(() => receiver.start());
afterAll(() => receiver.stop());
const h = useHarness({ env: deliveryEnv() });

const HOUR_AND_A_MINUTE = 3600_000 + 60_000;

describe('held sign-up whose hold ends as the decision commits', () => {
  it('when the decision is committing while the delivery job settles the expired row, then the job waits for it and the sign-up is POSTed after the install notification', async () => {
    const { p, destination } = await hookedProject(h(), receiver);
    const campaign = await campaignWithListings(h().deps, p);
    const iid = await clickedInstall(h(), p, campaign);
    await trigger(h(), p, iid, 'race-dead-1');

    // The delivery job, an hour later, claims the held row (leased now, so a decision's release
    // skips it) and stops before settling it. The decision then runs its statements and waits
    // before COMMIT, holding the install's row. The job goes on and must wait for that commit:
    // before, it read the install as undecided and ended the row dead, and nothing released it
    // after the decision committed.
    const later = Date.now() + HOUR_AND_A_MINUTE;
    const jobGate = gatedBegin(h().deps.sql, 'start');
    const job = deliverBatch(
      { ...h().deps, sql: jobGate.sql, now: () => later },
      { projectId: p.project.id, destination },
    );
    await jobGate.reached;
    const decisionGate = gatedBegin(h().deps.sql, 'commit');
    const decision = attribute({ ...h(), deps: { ...h().deps, sql: decisionGate.sql } }, p, iid);
    await decisionGate.reached;
    jobGate.open();
    expect(await someoneWaitsForALock(h().deps.sql)).toBe(true);
    decisionGate.open();
    expect((await decision)?.displayId).toBe(campaign.displayId);
    expect(await job).toMatchObject({ claimed: 1, dead: 0, sent: 0 });

    await deliverAt(h().deps, p, destination, later + 1000);
    const rows = await deliveryRows(h().deps, p);
    expect(rows.map((r) => [r.event_key, r.status, r.last_error]).sort()).toEqual([
      [`install:${iid}:`, 'sent', null],
      [`signup:${iid}:race-dead-1`, 'sent', null],
    ]);
    expect(bodiesFor(receiver, iid).map((b) => b.event_type)).toEqual(['install', 'signup']);
  });

  it('when the decision commits after the delivery job claimed the expired row but before it settled it, then the install notification still goes out before the sign-up', async () => {
    const { p, destination } = await hookedProject(h(), receiver);
    const campaign = await campaignWithListings(h().deps, p);
    const iid = await clickedInstall(h(), p, campaign);
    await trigger(h(), p, iid, 'race-order-1');

    const later = Date.now() + HOUR_AND_A_MINUTE;
    // Paused at the start of its settling transaction, right after the claim.
    const gate = gatedBegin(h().deps.sql, 'start');
    const job = deliverBatch(
      { ...h().deps, sql: gate.sql, now: () => later },
      { projectId: p.project.id, destination },
    );
    await gate.reached;
    await attribute(h(), p, iid);
    gate.open();
    expect(await job).toMatchObject({ claimed: 1, dead: 0, sent: 0 });
    await deliverAt(h().deps, p, destination, later + 1000);

    const bodies = bodiesFor(receiver, iid);
    expect(bodies.map((b) => b.event_type)).toEqual(['install', 'signup']);
    expect(bodies.find((b) => b.event_type === 'signup')).toMatchObject({ campaign_id: campaign.displayId });
  });

  it('when a worker that claimed the expired held row stalls and the decision comes during its 60 s lease, then the install notification still goes out before the sign-up', async () => {
    const { p, destination } = await hookedProject(h(), receiver);
    const campaign = await campaignWithListings(h().deps, p);
    const iid = await clickedInstall(h(), p, campaign);
    await trigger(h(), p, iid, 'stalled-1');

    // A worker claims the row as its hour ends, then stalls (its lease is a minute).
    const later = Date.now() + HOUR_AND_A_MINUTE;
    const claimed = await claimDueDeliveries(h().deps.sql, {
      projectId: p.project.id,
      destination,
      now: new Date(later),
      limit: 10,
      leaseMs: 60_000,
    });
    expect(claimed).toHaveLength(1);
    await attribute(h(), p, iid);

    // Another worker after the lease: the held row and the install's row are both due.
    await deliverAt(h().deps, p, destination, later + 61_000);
    await deliverAt(h().deps, p, destination, later + 62_000);

    expect(bodiesFor(receiver, iid).map((b) => b.event_type)).toEqual(['install', 'signup']);
  });

  it('when the decision commits before the delivery job claims the expired row, then both go out, install first (control)', async () => {
    const { p, destination } = await hookedProject(h(), receiver);
    const campaign = await campaignWithListings(h().deps, p);
    const iid = await clickedInstall(h(), p, campaign);
    await trigger(h(), p, iid, 'race-ctl-1');

    await attribute(h(), p, iid);
    const later = Date.now() + HOUR_AND_A_MINUTE;
    expect(await deliverAt(h().deps, p, destination, later)).toMatchObject({ claimed: 2, sent: 2 });
    expect(bodiesFor(receiver, iid).map((b) => b.event_type)).toEqual(['install', 'signup']);
  });
});

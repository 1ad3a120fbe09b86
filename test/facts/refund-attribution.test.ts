// A payment removal lands on the key its capture landed on, in every ordering of capture, refund,
// attribution decision and writer (README "Reporting": revenue counts "on the capture day and the
// capture's campaign, even when the install was attributed only after the capture went out
// organic; a removal nets out in every window"; "money is always sum(amount * sign)"). Enriched on
// its own, a refund made while its capture waited in the outbox went out on the campaign decided
// after the capture had gone out organic: +10 organic, -10 on the campaign, and revenue_events
// 2^64-1 there. The removal names its capture and the writer copies the capture's written columns
// (src/domain/facts/removal-columns.ts).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ATTRIBUTION_WAIT_MS } from '../../src/domain/facts/enrich-facts.ts';
import { flushAllFacts, flushFactBatch } from '../../src/domain/facts/flush-facts.ts';
import { replayDeadLetters } from '../../src/domain/facts/replay-dead-letters.ts';
import { claimRows } from '../../src/store/postgres/fact-outbox.ts';
import {
  attribute,
  campaignWithListings,
  clickLink,
  flushFacts,
  init,
  post,
  randomIp,
  useClientHarness,
} from '../support/client.ts';
import { signUp } from '../support/commerce.ts';
import { faultyClickHouse } from '../support/faulty-clickhouse.ts';
import { chJson, newProject, type TestProject } from '../support/harness.ts';

const h = useClientHarness();

/** A user on an install still being attributed (its click is on a campaign), who pays 10. */
async function pendingPayer() {
  const { deps } = h();
  const p = await newProject(deps);
  const campaign = await campaignWithListings(deps, p, { name: 'Late decision' });
  const ip = randomIp();
  const { referrer } = await clickLink(h(), campaign, { ip });
  await flushFacts(h());
  const iid = randomUUID();
  const res = await init(h(), p.token, { install_instance_id: iid, device_data: { install_ref: referrer } }, ip);
  expect(res.statusCode).toBe(202);
  await signUp(h(), p, iid, 'payer');
  const capturedAt = Date.now();
  const pay = await post(h(), 'capture-payment', {
    token: p.token,
    platform: 'ANDROID',
    install_instance_id: iid,
    user_id: 'payer',
    amount: 10,
    payment_id: 'refunded',
  });
  expect(pay.statusCode).toBe(201);
  return { p, campaignId: campaign.id, iid, capturedAt };
}

async function refund(p: TestProject) {
  const res = await post(h(), 'remove-captured-payment', {
    token: p.token,
    platform: 'ANDROID',
    payment_id: 'refunded',
  });
  expect(res.statusCode).toBe(200);
}

/** Runs the writer as if at `ms` (a capture older than ATTRIBUTION_WAIT_MS then goes out organic). */
async function flushAt(ms: number) {
  const { deps } = h();
  const realNow = deps.now;
  deps.now = () => ms;
  try {
    await flushFacts(h());
  } finally {
    deps.now = realNow;
  }
}

type PaymentRow = Record<string, string | number> & { sign: number; campaign_id: number };

/** The project's payment rows, capture first, with every column the writer adds. */
function paymentRows(p: TestProject) {
  return chJson<PaymentRow>(
    h().deps.ch,
    `SELECT sign, toString(amount) AS amount, campaign_id, display_id, network, ad_set_id, ad_set_name, creative_id,
       creative_name, keyword_id, keyword_name, reengagement_campaign_id, toString(install_ts) AS install_ts,
       toString(install_day) AS install_day, toString(ts) AS ts, toString(day) AS day, platform, project_tz
     FROM payments WHERE project_id = {p:String} ORDER BY sign DESC`,
    { p: p.project.id },
  );
}

/** The capture and its refund on one key, with the given campaign; nothing left in any breakdown. */
async function expectNetOut(p: TestProject, campaignId: number) {
  const rows = await paymentRows(p);
  expect(rows.map((r) => [r.sign, r.campaign_id])).toEqual([
    [1, campaignId],
    [-1, campaignId],
  ]);
  const [capture, removal] = rows as [PaymentRow, PaymentRow];
  expect({ ...removal, sign: 1 }).toEqual(capture);
  const left = await chJson<{ campaign_id: number; revenue: number; events: string }>(
    h().deps.ch,
    `SELECT campaign_id, revenue, toString(revenue_events) AS events FROM v_campaign_daily
     WHERE project_id = {p:String} AND (revenue != 0 OR revenue_events != 0) ORDER BY campaign_id`,
    { p: p.project.id },
  );
  expect(left).toEqual([]);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a refund of a capture still in the outbox', () => {
  it('when the capture goes out organic and the refund after the decision, then the refund nets out on the capture campaign', async () => {
    const { p, campaignId, iid, capturedAt } = await pendingPayer();
    // The refund is 2.5 s younger than the capture: still within its own wait when the capture's ends.
    await sleep(2_500);
    await refund(p);

    await flushAt(capturedAt + ATTRIBUTION_WAIT_MS + 1_000);
    expect((await attribute(h(), p, iid))?.campaignId).toBe(campaignId);
    await flushFacts(h());

    await expectNetOut(p, 0);
  });

  it('when the capture rested (given back by the writer) and the decision comes after the refund, then both land on the campaign', async () => {
    const { p, campaignId, iid } = await pendingPayer();
    await flushFacts(h()); // the capture waits for its install: given back, resting
    await refund(p);
    await flushFacts(h()); // the refund waits for its capture

    expect((await attribute(h(), p, iid))?.campaignId).toBe(campaignId);
    await flushFacts(h());

    await expectNetOut(p, campaignId);
  });

  it('when capture and refund are claimed in one batch after the decision, then the refund takes the capture columns from the batch', async () => {
    const { p, campaignId, iid } = await pendingPayer();
    await refund(p);
    expect((await attribute(h(), p, iid))?.campaignId).toBe(campaignId);

    await flushFacts(h());

    await expectNetOut(p, campaignId);
  });

  it('when the capture is claimed by another writer, then the refund waits for it and then repeats it', async () => {
    const { deps } = h();
    const { p, iid, capturedAt } = await pendingPayer();
    await refund(p);
    // Another writer takes the capture alone (the oldest payment row) and has not inserted it yet.
    await flushFacts(h()); // both given back, resting
    await deps.sql`UPDATE fact_outbox SET not_before = NULL WHERE project_id = ${p.project.id}`;
    const other = await claimRows(deps.sql, 'payments', 1);
    expect(other).toBeDefined();
    const realNow = deps.now;
    deps.now = () => capturedAt + ATTRIBUTION_WAIT_MS + 60_000;
    try {
      const mine = await flushFactBatch(deps, 'payments', { staleClaimMs: 60_000 });
      expect(mine).toMatchObject({ inserted: 0, waiting: 1 });
      // The other writer's batch goes out (retaken as stale): the capture organic, its wait over.
      await flushFactBatch(deps, 'payments', { staleClaimMs: 0 });
    } finally {
      deps.now = realNow;
    }
    await attribute(h(), p, iid);
    await deps.sql`UPDATE fact_outbox SET not_before = NULL WHERE project_id = ${p.project.id}`;
    await flushFacts(h());

    await expectNetOut(p, 0);
  });
});

describe('a refund of a capture ClickHouse holds', () => {
  it('when ClickHouse is away at the refund and at the first flush, then the refund still nets out on the capture campaign', async () => {
    const { deps } = h();
    const { p, campaignId, iid, capturedAt } = await pendingPayer();
    await flushAt(capturedAt + ATTRIBUTION_WAIT_MS + 1_000); // the capture goes out organic
    expect((await attribute(h(), p, iid))?.campaignId).toBe(campaignId);

    const faulty = faultyClickHouse(deps.ch);
    faulty.set('down');
    const realCh = deps.ch;
    deps.ch = faulty.client;
    try {
      await refund(p);
      await expect(flushAllFacts(deps, ['payments'])).rejects.toThrow();
    } finally {
      deps.ch = realCh;
    }
    await flushFacts(h());

    await expectNetOut(p, 0);
  });
});

describe('a refund of a capture ClickHouse refused', () => {
  it('when the capture is a dead letter, then the refund is one too with its columns, and replaying both nets out', async () => {
    const { deps } = h();
    const { p, campaignId, iid } = await pendingPayer();
    const [pay] = await deps.sql<{ fact_id: string }[]>`
      SELECT fact_id FROM payments WHERE project_id = ${p.project.id} AND payment_id = 'refunded'`;
    const captureId = pay?.fact_id ?? '';
    // A capture ClickHouse refuses (as bad data), then fixed by the operator in its dead letter.
    await deps.sql`UPDATE fact_outbox SET row = (row::jsonb || '{"amount": "ten"}')::json
      WHERE project_id = ${p.project.id} AND fact_id = ${captureId}`;
    expect((await attribute(h(), p, iid))?.campaignId).toBe(campaignId);
    await flushFacts(h());
    await refund(p);
    await flushFacts(h());

    const dead = await deps.sql<{ id: string; fact_id: string; campaign_id: number; reason: string }[]>`
      SELECT id::text, fact_id, (row->>'campaign_id')::int AS campaign_id, reason FROM fact_dead_letters
      WHERE project_id = ${p.project.id} ORDER BY id`;
    expect(dead.map((d) => [d.fact_id === captureId, d.campaign_id])).toEqual([
      [true, campaignId],
      [false, campaignId],
    ]);
    expect(dead[1]?.reason).toContain(`the capture it removes (${captureId}) is a dead letter`);
    expect(await paymentRows(p)).toEqual([]);

    await deps.sql`UPDATE fact_dead_letters SET row = row || '{"amount": "10"}'
      WHERE project_id = ${p.project.id} AND fact_id = ${captureId}`;
    for (const d of dead) {
      await replayDeadLetters(deps, { table: 'payments', id: d.id });
    }
    await flushFacts(h());

    await expectNetOut(p, campaignId);
  });
});

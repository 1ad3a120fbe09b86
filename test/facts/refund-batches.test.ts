// Payment removals copy their capture's written columns (src/domain/facts/removal-columns.ts).
// "ClickHouse must not get a -1 without its +1": orderings test/facts/refund-attribution.test.ts does not cover.
import { describe, expect, it } from 'vitest';
import { flushFacts, post, useClientHarness } from '../support/client.ts';
import { registeredUser } from '../support/commerce.ts';
import { chJson, type TestProject } from '../support/harness.ts';

const h = useClientHarness();

async function pay(p: TestProject, iid: string, paymentId: string, amount = 10) {
  const res = await post(h(), 'capture-payment', {
    token: p.token,
    platform: 'ANDROID',
    install_instance_id: iid,
    user_id: 'payer',
    amount,
    payment_id: paymentId,
  });
  expect(res.statusCode).toBe(201);
}

async function refund(p: TestProject, body: Record<string, unknown>) {
  const res = await post(h(), 'remove-captured-payment', { token: p.token, platform: 'ANDROID', ...body });
  expect(res.statusCode).toBe(200);
  return res;
}

function chPayments(p: TestProject) {
  return chJson<{ sign: number; amount: string; payment_id: string }>(
    h().deps.ch,
    `SELECT sign, toString(amount) AS amount, payment_id FROM payments WHERE project_id = {p:String} ORDER BY payment_id, sign DESC`,
    { p: p.project.id },
  );
}

function leftOver(p: TestProject) {
  return chJson<{ campaign_id: number; rev: string; evs: string }>(
    h().deps.ch,
    `SELECT campaign_id, toString(revenue) AS rev, toString(revenue_events) AS evs FROM v_campaign_daily
     WHERE project_id = {p:String} AND (revenue != 0 OR revenue_events != 0)`,
    { p: p.project.id },
  );
}

describe('a removal claimed in the batch of a capture ClickHouse refuses', () => {
  it('when capture and refund go out in one batch and ClickHouse refuses the capture, then the refund is not inserted alone', async () => {
    const { deps } = h();
    const { p, iid } = await registeredUser(h(), 'payer');
    await pay(p, iid, 'bad-capture');
    // A capture ClickHouse refuses (as bad data), exactly as test/facts/refund-attribution.test.ts makes one.
    await deps.sql`UPDATE fact_outbox SET row = (row::jsonb || '{"amount": "ten"}')::json
      WHERE project_id = ${p.project.id} AND fact_table = 'payments'`;
    await refund(p, { payment_id: 'bad-capture' });

    await flushFacts(h()); // both claimed in one batch

    // No -1 without its +1: either both are dead letters, or both are in ClickHouse.
    expect(await leftOver(p)).toEqual([]);
    const rows = await chPayments(p);
    expect(rows.filter((r) => r.sign === -1).length).toBe(rows.filter((r) => r.sign === 1).length);
  });
});

describe('many removals', () => {
  it('when a user with 300 payments, half in ClickHouse and half in the outbox, is refunded at once, then everything nets out', async () => {
    const { deps } = h();
    const { p, iid } = await registeredUser(h(), 'payer');
    for (let i = 0; i < 150; i++) {
      await pay(p, iid, `old-${String(i).padStart(3, '0')}`, 1 + i / 100);
    }
    await flushFacts(h());
    for (let i = 0; i < 150; i++) {
      await pay(p, iid, `new-${String(i).padStart(3, '0')}`, 2 + i / 100);
    }
    const res = await refund(p, { user_id: 'payer' });
    expect(res.json().data).toMatchObject({});

    await flushFacts(h());

    const [left] = await deps.sql<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM fact_outbox WHERE project_id = ${p.project.id}`;
    expect(left?.n).toBe(0);
    const rows = await chPayments(p);
    expect(rows.filter((r) => r.sign === -1)).toHaveLength(300);
    expect(await leftOver(p)).toEqual([]);
  });
});

describe('a removal of a capture written before the upgrade', () => {
  it('when the capture went to ClickHouse before enrich_from existed and its removal comes after, then it nets out', async () => {
    const { deps } = h();
    const { p, iid } = await registeredUser(h(), 'payer');
    await pay(p, iid, 'pre-upgrade');
    await flushFacts(h());
    await refund(p, { payment_id: 'pre-upgrade' });
    // A removal written by the old code: no enrich_from.
    await deps.sql`UPDATE fact_outbox SET enrich_from = NULL WHERE project_id = ${p.project.id}`;

    await flushFacts(h());

    expect(await leftOver(p)).toEqual([]);
  });
});

// CleverTap (README "Analytics integrations", Refusals): a 400 naming one refused record while
// `processed` says some of the others went in and some did not. Every update only sets properties
// (vendor-request.ts), so the unnamed users go again (harmless for those CleverTap took); the whole
// batch ending dead lost users CleverTap never refused.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attributedInstall } from '../support/client.ts';
import { deliverAt, deliveryEnv, deliveryRows } from '../support/deliveries.ts';
import { connectVendor, FakeAnalytics, signUp } from '../support/fake-analytics.ts';
import { newProject, useHarness } from '../support/harness.ts';

const fake = new FakeAnalytics();
const env = deliveryEnv();
beforeAll(async () => {
  env.ANALYTICS_BASE_URL = await fake.start();
});
afterAll(() => fake.stop());
const h = useHarness({ env });

async function usersOf(n: number) {
  const p = await newProject(h().deps);
  await connectVendor(h().deps, p, 'clevertap');
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `ct-hunt-${i}-${randomUUID().slice(0, 8)}`;
    const { iid } = await attributedInstall(h(), p);
    await signUp(h(), p, iid, { id });
    ids.push(id);
  }
  const rows = async () => (await deliveryRows(h().deps, p)).map((r) => [r.status, r.last_error] as const);
  return { p, ids, rows };
}

describe('a CleverTap 400 naming one record, with some of the others processed', () => {
  it('when processed counts only part of the others, then only the named user is dead and the others are not lost', async () => {
    const u = await usersOf(3);
    const answer = {
      status: 'fail',
      processed: 1,
      unprocessed: [
        { status: 'fail', code: 515, error: 'Email invalid', record: { identity: u.ids[1], type: 'profile' } },
      ],
    };
    fake.answerNext('clevertap', 1, 400, JSON.stringify(answer));

    await deliverAt(h().deps, u.p, 'analytics:clevertap');

    const rows = await u.rows();
    expect(rows[1]).toEqual(['dead', 'HTTP 400: CleverTap refused this user: Email invalid (code 515)']);
    // Users 0 and 2 were not refused: sent again (at once or later), never dead.
    expect(rows[0]?.[0]).not.toBe('dead');
    expect(rows[2]?.[0]).not.toBe('dead');
  });
});

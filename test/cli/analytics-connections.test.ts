// CLI of the analytics integrations: connections set-analytics / list-analytics / remove-analytics,
// as PUT / GET / DELETE /api/v1/connections/<vendor>. The key is stored sealed and only a
// fingerprint is shown; a bad flag exits 2 naming the flag.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.ts';
import { deliveryEnv } from '../support/deliveries.ts';
import { CLEVERTAP_ACCOUNT_ID, FIREBASE_APP_ID, VENDOR_KEYS } from '../support/fake-analytics.ts';
import { newProject, testEnv, useHarness } from '../support/harness.ts';

const h = useHarness({ env: deliveryEnv() });

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const env = await testEnv({ SECRETS_KEY: deliveryEnv().SECRETS_KEY ?? '' });
  const code = await runCli([...args, '--json'], env, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, json: code === 0 ? JSON.parse(out.join('\n')) : undefined, text: out.join('\n'), err: err.join('\n') };
}

const fingerprint = (k: string) => createHash('sha256').update(k).digest('hex').slice(0, 12);

describe('connections set-analytics, list-analytics, remove-analytics', () => {
  it('when a vendor is set, listed and removed, then the key is sealed and only its fingerprint shows', async () => {
    const p = await newProject(h().deps);
    const id = p.project.id;
    const base = ['--project', id, '--key', VENDOR_KEYS.posthog];

    const set = await cli([
      'connections',
      'set-analytics',
      ...base,
      '--vendor',
      'posthog',
      '--endpoint',
      'eu',
      '--active',
      'true',
    ]);
    const list = await cli(['connections', 'list-analytics', '--project', id]);
    const [row] = await h().deps.sql<{ key_enc: string }[]>`
      SELECT key_enc FROM analytics_connections WHERE project_id = ${id}`;
    const removed = await cli(['connections', 'remove-analytics', '--project', id, '--vendor', 'posthog']);

    const conn = {
      project_id: id,
      vendor: 'posthog',
      endpoint: 'https://eu.i.posthog.com',
      active: true,
      activated_at: expect.any(String),
      key_fingerprint: fingerprint(VENDOR_KEYS.posthog),
    };
    expect(set).toMatchObject({ code: 0, json: conn });
    expect(list).toMatchObject({ code: 0, json: [conn] });
    expect(removed).toMatchObject({ code: 0, json: { project_id: id, vendor: 'posthog', removed: true } });
    expect(set.text + list.text).not.toContain(VENDOR_KEYS.posthog);
    expect(row?.key_enc).toMatch(/^v1\./);
    expect(row?.key_enc).not.toContain(VENDOR_KEYS.posthog);
  });

  it('when GA4 is set with --account-id, then the Firebase app id is stored and shown beside the fingerprint', async () => {
    const p = await newProject(h().deps);
    const id = p.project.id;

    const set = await cli([
      'connections',
      'set-analytics',
      '--project',
      id,
      '--vendor',
      'ga4',
      '--key',
      VENDOR_KEYS.ga4,
      '--account-id',
      FIREBASE_APP_ID,
      '--endpoint',
      'eu',
      '--active',
      'true',
    ]);
    const [row] = await h().deps.sql<{ account_id: string }[]>`
      SELECT account_id FROM analytics_connections WHERE project_id = ${id} AND vendor = 'ga4'`;

    expect(set).toMatchObject({
      code: 0,
      json: {
        vendor: 'ga4',
        endpoint: 'https://region1.google-analytics.com',
        account_id: FIREBASE_APP_ID,
        key_fingerprint: fingerprint(VENDOR_KEYS.ga4),
      },
    });
    expect(row?.account_id).toBe(FIREBASE_APP_ID);
    expect(set.text).not.toContain(VENDOR_KEYS.ga4);
  });

  it('when CleverTap is set with --account-id and no --endpoint, then its account id is stored and requests go to its default region, eu1', async () => {
    const p = await newProject(h().deps);
    const id = p.project.id;
    const flags = [
      '--vendor',
      'clevertap',
      '--key',
      VENDOR_KEYS.clevertap,
      '--account-id',
      ` ${CLEVERTAP_ACCOUNT_ID} `,
    ];

    const set = await cli(['connections', 'set-analytics', '--project', id, ...flags, '--active', 'true']);
    const list = await cli(['connections', 'list-analytics', '--project', id]);
    const [row] = await h().deps.sql<{ account_id: string }[]>`
      SELECT account_id FROM analytics_connections WHERE project_id = ${id} AND vendor = 'clevertap'`;

    const conn = {
      vendor: 'clevertap',
      endpoint: 'https://api.clevertap.com',
      account_id: CLEVERTAP_ACCOUNT_ID,
      key_fingerprint: fingerprint(VENDOR_KEYS.clevertap),
    };
    expect(set).toMatchObject({ code: 0, json: conn });
    expect(list).toMatchObject({ code: 0, json: [conn] });
    expect(row?.account_id).toBe(CLEVERTAP_ACCOUNT_ID);
    expect(set.text + list.text).not.toContain(VENDOR_KEYS.clevertap);
  });

  it.each([
    [['--vendor', 'ga4', '--key', 'k'.repeat(10)], '--account-id is required for ga4 (its Firebase app id)'],
    [
      ['--vendor', 'ga4', '--key', 'k'.repeat(10), '--account-id', 'G-ABC123'],
      '--account-id must be your Firebase app id',
    ],
    [
      ['--vendor', 'posthog', '--key', 'k'.repeat(10), '--account-id', FIREBASE_APP_ID],
      '--account-id is only for ga4 (its Firebase app id) and clevertap (its account id)',
    ],
    [
      ['--vendor', 'moengage', '--key', 'k'.repeat(10)],
      '--vendor must be one of braze, mixpanel, amplitude, posthog, ga4, clevertap',
    ],
    [['--vendor', 'clevertap', '--key', 'k'.repeat(10)], '--account-id is required for clevertap (its account id)'],
    [
      ['--vendor', 'clevertap', '--key', 'k'.repeat(10), '--account-id', '1:1234567890:android:0a1b'],
      '--account-id must be your CleverTap account id (Project ID), like 865-K5W-R47Z or TEST-865-K5W-R47Z',
    ],
    [
      ['--vendor', 'clevertap', '--key', 'k'.repeat(10), '--account-id', CLEVERTAP_ACCOUNT_ID, '--endpoint', 'eu'],
      '--endpoint must be one of eu1, in1, sg1, us1, aps3, mec1',
    ],
    [['--vendor', 'braze', '--key', 'k'.repeat(10)], '--endpoint is required for braze (its REST endpoint)'],
    [['--vendor', 'mixpanel', '--key', 'short'], '--key must be 8 to 512 letters, digits, _, -, . or :'],
    [['--vendor', 'amplitude', '--key', 'k'.repeat(10), '--endpoint', 'in'], '--endpoint must be one of us, eu'],
  ])('when set-analytics gets %j, then it exits 2 naming the flag', async (flags, problem) => {
    const p = await newProject(h().deps);

    const res = await cli(['connections', 'set-analytics', '--project', p.project.id, ...flags, '--active', 'true']);

    expect(res.code).toBe(2);
    expect(res.err).toContain(problem);
  });
});

// A local fake of the analytics vendors' ingestion APIs, reached through ANALYTICS_BASE_URL
// (<base>/<vendor><path>): records each request (path, headers, raw body) and answers what the
// test queues per vendor (status and body; by default each vendor's success answer: Braze 201
// {"message":"success"}, Mixpanel {"status":1,"error":null}, Amplitude "success", PostHog {"status":1},
// GA4 204 with no body, CleverTap {"status":"success","processed":1,"unprocessed":[]}).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { Deps } from '../../src/deps.ts';
import { setAnalyticsConnection } from '../../src/domain/analytics/set-analytics-connection.ts';
import type { AnalyticsVendor } from '../../src/store/postgres/analytics-connections.ts';
import { post } from './client.ts';
import type { Harness, TestProject } from './harness.ts';

export type VendorHit = { vendor: string; path: string; headers: IncomingHttpHeaders; body: string };
type Answer = { status: number; body: string };

const OK: Record<string, Answer> = {
  braze: { status: 201, body: '{"message":"success","attributes_processed":1}' },
  mixpanel: { status: 200, body: '{"status":1,"error":null}' },
  amplitude: { status: 200, body: 'success' },
  posthog: { status: 200, body: '{"status":1}' },
  ga4: { status: 204, body: '' },
  clevertap: { status: 200, body: '{"status":"success","processed":1,"unprocessed":[]}' },
};

export class FakeAnalytics {
  readonly hits: VendorHit[] = [];
  private queued = new Map<string, Answer[]>();
  private server: Server | undefined;
  url = '';

  /** The next n requests to the vendor answer this. */
  answerNext(vendor: AnalyticsVendor, n: number, status: number, body = ''): void {
    const list = this.queued.get(vendor) ?? [];
    list.push(...Array.from({ length: n }, () => ({ status, body })));
    this.queued.set(vendor, list);
  }

  hitsOf(vendor: AnalyticsVendor): VendorHit[] {
    return this.hits.filter((x) => x.vendor === vendor);
  }

  async start(): Promise<string> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const [, vendor = '', ...rest] = (req.url ?? '').split('/');
        const answer = this.queued.get(vendor)?.shift() ?? OK[vendor] ?? { status: 404, body: 'unknown vendor' };
        this.hits.push({
          vendor,
          path: `/${rest.join('/')}`,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

export const VENDOR_KEYS: Record<AnalyticsVendor, string> = {
  braze: 'braze-rest-key-0123456789',
  mixpanel: 'mixpaneltoken0123456789abcdef01',
  amplitude: 'amplitudekey0123456789abcdef0123',
  posthog: 'phc_posthogkey0123456789',
  ga4: 'ga4ApiSecret-0123456789',
  clevertap: 'SMQ-KOZ-PASSCODE-0123',
};

export const FIREBASE_APP_ID = '1:1234567890:android:0a1b2c3d4e5f6789';
export const CLEVERTAP_ACCOUNT_ID = 'TEST-865-K5W-R47Z';
const ACCOUNT_IDS: Partial<Record<AnalyticsVendor, string>> = { ga4: FIREBASE_APP_ID, clevertap: CLEVERTAP_ACCOUNT_ID };

/** An active (or not) connection of the project to the vendor, with the test key. */
export async function connectVendor(deps: Deps, p: TestProject, vendor: AnalyticsVendor, active = true) {
  return setAnalyticsConnection(deps, p.project.id, {
    vendor,
    key: VENDOR_KEYS[vendor],
    endpoint: vendor === 'braze' ? 'https://rest.iad-01.braze.com' : null,
    accountId: ACCOUNT_IDS[vendor] ?? null,
    active,
  });
}

/** A SIGNUP trigger of the install with this user_data (Android); asserts the 200. */
export async function signUp(h: Harness, p: TestProject, iid: string, userData: Record<string, unknown>) {
  const res = await post(h, 'trigger', {
    token: p.token,
    platform: 'ANDROID',
    install_instance_id: iid,
    user_data: userData,
    data: { device_data: {} },
    event: 'SIGNUP',
  });
  expect(res.statusCode).toBe(200);
}

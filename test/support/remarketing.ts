// Helpers for the reinstall and re-engagement tests (test/http/client/reinstalls-*, reengagement-*):
// a campaign's report row, iOS install ids and inits as the iOS SDK sends them, and
// get-attribution-result.
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { init, type Res } from './client.ts';
import type { Harness, TestProject } from './harness.ts';

export type ReportRow = Record<string, unknown> & { id: number };

/** Campaign `id`'s row of GET /api/v1/reporting/campaigns (`query`: view, from, to). */
export async function campaignRow(h: Harness, p: TestProject, id: number, query = ''): Promise<ReportRow> {
  const res = await h.app.inject({
    method: 'GET',
    url: `/api/v1/reporting/campaigns${query ? `?${query}` : ''}`,
    headers: p.headers,
  });
  expect(res.statusCode).toBe(200);
  const row = (res.json().data.campaigns as ReportRow[]).find((c) => c.id === id);
  if (!row) {
    throw new Error(`campaign ${id} not in the report`);
  }
  return row;
}

/** A 20-character [A-Za-z0-9] id, as the iOS SDK makes (real-clients §1). */
export function iosInstallId(): string {
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(20)].map((b) => abc[b % abc.length]).join('');
}

/** An iOS init (real-clients §5.2 keys): `deviceData` adds idfa / idfv as the test needs. */
export function iosInit(h: Harness, p: TestProject, iid: string, deviceData: Record<string, unknown>, ip: string) {
  return init(
    h,
    p.token,
    {
      platform: 'IOS',
      install_instance_id: iid,
      device_data: { device: 'iPhone', system_version: '17.4', ...deviceData },
    },
    ip,
  );
}

/** GET /api/v1/get-attribution-result?<query>. */
export function attributionResult(h: Harness, p: TestProject, query: string): Promise<Res> {
  return h.app.inject({ method: 'GET', url: `/api/v1/get-attribution-result?${query}`, headers: p.headers });
}

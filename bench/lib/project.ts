// The bench's tenant: a project (the first-start one in embedded mode, a new one in service mode),
// its store listings (CLI, beside the running server), and campaigns (the public API).
import { runCli } from '../../src/cli/main.ts';
import type { Credentials, RunningService } from './service.ts';

export type BenchProject = Credentials & { listings: { android: string; ios: string } };

export const PLAY_URL = 'https://play.google.com/store/apps/details?id=com.example.bench';
export const APP_STORE_URL = 'https://apps.apple.com/app/id1234567890';

/** runCli in this process, against the service's Postgres; returns the command's --json output. */
async function cli(svc: RunningService, args: string[]): Promise<Record<string, unknown>> {
  let out = '';
  let err = '';
  const env = { PATH: process.env.PATH, DATABASE_URL: svc.pgUrl, LOG_LEVEL: 'warn', DATA_DIR: svc.dataDir };
  const code = await runCli([...args, '--json'], env, {
    out: (s) => {
      out += s;
    },
    err: (s) => {
      err += `${s}\n`;
    },
  });
  if (code !== 0) {
    throw new Error(`cli ${args.slice(0, 2).join(' ')} failed with exit code ${code}: ${err.trim()}`);
  }
  return JSON.parse(out) as Record<string, unknown>;
}

async function newProject(svc: RunningService, runId: string): Promise<Credentials> {
  const p = await cli(svc, ['projects', 'create', '--name', `bench ${runId}`]);
  return { projectId: String(p.id), token: String(p.token), serverKey: String(p.server_key) };
}

export async function prepareProject(svc: RunningService, runId: string): Promise<BenchProject> {
  const creds = svc.banner ?? (await newProject(svc, runId));
  const listing = async (platform: string, url: string) => {
    const args = ['store-listings', 'add', '--project', creds.projectId, '--platform', platform];
    const l = await cli(svc, [...args, '--name', `bench ${platform}`, '--url', url]);
    return String(l.store_listing_id);
  };
  return {
    ...creds,
    listings: { android: await listing('ANDROID', PLAY_URL), ios: await listing('IOS', APP_STORE_URL) },
  };
}

/** POST /api/v1/create-campaign with both listings; the display id is ours, so clicks can be counted per campaign. */
export async function createCampaign(svc: RunningService, p: BenchProject, displayId: string): Promise<void> {
  const res = await fetch(`${svc.url}/api/v1/create-campaign`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'service-key': p.serverKey },
    body: JSON.stringify({
      name: `Bench ${displayId}`,
      deeplink: 'benchapp://promo',
      custom_display_id: displayId,
      store_listing_ids: [p.listings.android, p.listings.ios],
    }),
  });
  if (res.status !== 201) {
    throw new Error(`create-campaign ${displayId}: ${res.status} ${await res.text()}`);
  }
}

/** Seeded display ids repeat across runs; in service mode (shared stores) the run id keeps them unique. */
export function benchDisplayId(svc: Pick<RunningService, 'mode'>, runId: string, base: string): string {
  return svc.mode === 'service' ? `${base}-${runId}` : base;
}

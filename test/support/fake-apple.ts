// A local stand-in for Apple's AdServices attribution API (APPLE_ADS_ATTRIBUTION_URL). The token
// picks the answers (appleToken): a plan of steps answered in turn, the last one repeating, e.g.
// `404,200` answers 404 once, then the record. A step is an HTTP status, `redirect` (302 to
// /elsewhere), `huge` (a record past the size cap) or `hang` (never answers). A 200 with an empty
// campaign id is Apple's organic record ({attribution: false}); clickDate, when given, replaces the
// record's.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const APPLE_RECORD = {
  attribution: true,
  orgId: 40669820,
  conversionType: 'Download',
  clickDate: '2020-04-08T17:17Z',
  adGroupId: 542317095,
  countryOrRegion: 'US',
  keywordId: 87675432,
  adId: 542317136,
};

/** `<plan>:<campaignId>:<clickDate as hex>:<nonce>`: unique per call, so answers are per token. */
export function appleToken(plan: string, campaignId = '', clickDate = ''): string {
  return `${plan}:${campaignId}:${Buffer.from(clickDate).toString('hex')}:${randomUUID()}`;
}

type AppleRequest = { method: string; path: string; contentType: string; body: string };

function answer(res: http.ServerResponse, step: string, campaignId: string, clickDateHex: string): void {
  const json = (status: number, value: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  const record = {
    ...APPLE_RECORD,
    campaignId: Number(campaignId),
    ...(clickDateHex ? { clickDate: Buffer.from(clickDateHex, 'hex').toString() } : {}),
  };
  if (step === 'hang') {
    return;
  }
  if (step === 'redirect') {
    res.writeHead(302, { location: '/elsewhere' }).end();
  } else if (step === 'huge') {
    json(200, { ...record, padding: 'x'.repeat(100_000) });
  } else if (step === '200') {
    json(200, campaignId === '' ? { attribution: false } : record);
  } else {
    json(Number(step), {});
  }
}

export async function startFakeApple() {
  const requests: AppleRequest[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      const n = requests.filter((r) => r.body === body).length;
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        contentType: req.headers['content-type'] ?? '',
        body,
      });
      const [plan = '', campaignId = '', clickDateHex = ''] = body.split(':');
      const steps = plan.split(',');
      answer(res, steps[Math.min(n, steps.length - 1)] ?? '', campaignId, clickDateHex);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/v1/`,
    requestsFor: (token: string) => requests.filter((r) => r.body === token),
    elsewhere: () => requests.filter((r) => r.path === '/elsewhere'),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

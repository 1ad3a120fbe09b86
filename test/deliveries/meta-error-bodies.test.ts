// Meta deliveries: Meta's own error answers (Graph API `{"error":{"code":190,...}}` for a bad token)
// handled as README "Outgoing deliveries" says: "any other 4xx is dead at once", kept with the
// reason for `deliveries dead-letters`, never retried, and the token never lands in the reason or
// the attempt log; `deliveries replay` sends them again once the connection has a good token.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayDeadDeliveries } from '../../src/domain/deliveries/replay-dead-deliveries.ts';
import { setMetaConnection } from '../../src/domain/deliveries/set-meta-connection.ts';
import { post } from '../support/client.ts';
import {
  ACCESS_TOKEN,
  attemptRows,
  CART,
  connectMeta,
  DATASET_ID,
  deliverAt,
  deliveryEnv,
  deliveryRows,
  registeredUser,
} from '../support/deliveries.ts';
import { newProject, useHarness } from '../support/harness.ts';

const GOOD_TOKEN = 'EAAGgoodtoken1234567890abcdefgh';
const INVALID_TOKEN_BODY = JSON.stringify({
  error: {
    message: 'Invalid OAuth access token - Cannot parse access token',
    type: 'OAuthException',
    code: 190,
    fbtrace_id: 'AXyz',
  },
});
// Meta-like: the good token is accepted, any other answers 400 with code 190.
const seen: { token: string; ids: string[]; status: number }[] = [];
let server: Server;
const env = deliveryEnv();
beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        access_token: string;
        data: { event_id: string }[];
      };
      const ok = body.access_token === GOOD_TOKEN;
      seen.push({ token: body.access_token, ids: body.data.map((e) => e.event_id), status: ok ? 200 : 400 });
      res.writeHead(ok ? 200 : 400, { 'content-type': 'application/json' });
      res.end(ok ? JSON.stringify({ events_received: body.data.length, fbtrace_id: 'A' }) : INVALID_TOKEN_BODY);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  env.META_GRAPH_BASE_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});
const h = useHarness({ env });

describe('an invalid token (code 190)', () => {
  it('when Meta refuses the token, then the rows are dead at once with the reason and no token, not retried, and replay after a token fix sends each once', async () => {
    const p = await newProject(h().deps);
    await connectMeta(h().deps, p); // ACCESS_TOKEN, which this Meta refuses
    const iid = await registeredUser(h(), p, { userId: 'u-190', email: 'e@f.io' });
    const ids = ['t190-a', 't190-b'].map((s) => `${s}-${p.project.id.slice(0, 6)}`);
    for (const id of ids) {
      await post(h(), 'capture-event', {
        token: p.token,
        platform: 'ANDROID',
        install_instance_id: iid,
        event_name: 'add_to_cart',
        event_id: id,
        event_data: CART,
      });
    }
    const mine = () => seen.filter((s) => s.ids.some((id) => ids.includes(id)));

    expect(await deliverAt(h().deps, p, 'meta')).toMatchObject({ claimed: 2, sent: 0, dead: 2, retry: false });
    expect((await deliverAt(h().deps, p, 'meta', Date.now() + 3_600_000)).claimed).toBe(0);
    const rows = await deliveryRows(h().deps, p);
    expect(rows.map((r) => [r.status, r.attempts, r.last_error])).toEqual(
      ids.map(() => ['dead', 1, `HTTP 400: ${INVALID_TOKEN_BODY}`]),
    );
    const log = JSON.stringify(await attemptRows(h().deps, p));
    expect(log).not.toContain(ACCESS_TOKEN);
    expect(JSON.stringify(rows)).not.toContain(ACCESS_TOKEN);

    await setMetaConnection(h().deps, p.project.id, {
      datasetId: DATASET_ID,
      accessToken: GOOD_TOKEN,
      graphVersion: null,
      active: true,
    });
    expect(await replayDeadDeliveries(h().deps, { projectId: p.project.id })).toEqual({
      deliveries: 2,
      destinations: 1,
    });
    await deliverAt(h().deps, p, 'meta');

    expect(mine().map((s) => [s.status, s.token === GOOD_TOKEN, [...s.ids].sort()])).toEqual([
      [400, false, [...ids].sort()],
      [200, true, [...ids].sort()],
    ]);
    expect((await deliveryRows(h().deps, p)).map((r) => r.status)).toEqual(['sent', 'sent']);
  });
});

// POST /web/ingest under a full fact backlog (catalog I3, F4; README "Web SDK"): once more facts
// wait for ClickHouse than FACT_BACKLOG_MAX_ROWS, web events are refused with 503 + Retry-After
// before anything is written (so the SDK's retry on another host cannot count one twice), the
// answer still carries CORS, the preflight still answers, and the events accepted before arrive.
// Its own file: the cap counts every row of the process's database.
import { describe, expect, it } from 'vitest';
import { flushFacts } from '../../support/client.ts';
import { outboxRows } from '../../support/fact-counts.ts';
import { newProject, useHarness } from '../../support/harness.ts';
import { PAGE_ORIGIN, postWeb, sdkPageView, stored, webRows } from '../../support/web.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false', FACT_BACKLOG_MAX_ROWS: '3' } });

/** The cap's row count is at most a second old. */
const staleness = () => new Promise((r) => setTimeout(r, 1100));

describe('503', () => {
  it('when more facts wait than the cap, then 503 with Retry-After and CORS, and the earlier events arrive', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const accepted: unknown[] = [];
    for (let i = 0; i < 4; i++) {
      const body = sdkPageView(p.token, { client_timestamp: `2026-11-28T10:00:0${i}.000Z` });
      expect((await postWeb(h(), body)).json()).toEqual(stored);
      accepted.push(body.event_id);
    }
    await staleness();

    const refused = await postWeb(h(), sdkPageView(p.token));
    const preflight = await h().app.inject({ method: 'OPTIONS', url: '/web/ingest', headers: { origin: PAGE_ORIGIN } });

    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toEqual({ msg: 'Too much data is waiting to be stored. Please retry later.', status: 503 });
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.headers['access-control-allow-origin']).toBe(PAGE_ORIGIN);
    expect(preflight.statusCode).toBe(204);
    expect(await outboxRows(deps, p.project.id)).toEqual({ web_events: 4 });
    await flushFacts(h());
    expect((await webRows(deps, p)).map((r) => r.event_id)).toEqual(accepted);
  });
});

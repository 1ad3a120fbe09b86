// POST /web/ingest rate limit (README "Web SDK"): RATE_LIMIT_WEB_PER_SECOND per project, counted
// apart from the token's app requests (RATE_LIMIT_CLIENT_PER_SECOND), so a busy website never uses
// up the budget of the project's app installs. Its 429 carries CORS and Retry-After.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { init, useClientHarness } from '../../support/client.ts';
import { newProject } from '../../support/harness.ts';
import { PAGE_ORIGIN, postWeb, sdkPageView } from '../../support/web.ts';

const h = useClientHarness({
  RATE_LIMITS_ENABLED: 'true',
  RATE_LIMIT_CLIENT_PER_SECOND: '3',
  RATE_LIMIT_WEB_PER_SECOND: '3',
});

describe('429', () => {
  it('when a page sends more events per second than the limit while the app inits, then only web events get 429', async () => {
    const { deps } = h();
    const p = await newProject(deps);

    // 8 web events over a limit of 3: whatever second boundary they straddle, one side holds 4 or
    // more. The 3 inits stay within the limit unless they share the web events' budget.
    const [web, app] = await Promise.all([
      Promise.all(Array.from({ length: 8 }, () => postWeb(h(), sdkPageView(p.token)))),
      Promise.all(Array.from({ length: 3 }, () => init(h(), p.token, { install_instance_id: randomUUID() }))),
    ]);

    const limited = web.filter((r) => r.statusCode === 429);
    expect(limited.length).toBeGreaterThan(0);
    for (const r of limited) {
      expect(r.json()).toEqual({ msg: 'Rate limit exceeded. Please try again later.', status: 429 });
      expect(r.headers['retry-after']).toBe('1');
      expect(r.headers['access-control-allow-origin']).toBe(PAGE_ORIGIN);
    }
    expect(app.map((r) => r.statusCode)).toEqual([202, 202, 202]);
  });
});

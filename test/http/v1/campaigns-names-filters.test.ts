// Campaign names and list filters, as a user writes them (not in the spec; texts ours). A name with
// a control character inside (U+0001-U+001F, DEL, U+0080-U+009F) is refused with its own 400 on
// create-campaign and on edit, and nothing is stored; one at either end that trimming removes (tab,
// newline) is trimmed like a space. NUL keeps its text (create-campaign.test.ts). On GET
// /api/v1/campaigns an empty or blank `domain` or `link` means no filter, as `filter` and `channel` do.
import { describe, expect, it } from 'vitest';
import * as f from '../../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const CONTROL = 'Campaign name must not contain control characters!';
const INSIDE = [
  'a\u0001b',
  'line\nbreak',
  'tab\tinside',
  'bell\u0007',
  '\u001bescape',
  'del\u007f',
  'c1\u0085x',
  'c1\u009fx',
];

function create(p: TestProject, payload: Record<string, unknown>) {
  return h().app.inject({ method: 'POST', url: '/api/v1/create-campaign', headers: p.headers, payload });
}

function edit(p: TestProject, displayId: string, payload: Record<string, unknown>) {
  return h().app.inject({ method: 'PATCH', url: `/api/v1/campaigns/${displayId}`, headers: p.headers, payload });
}

function list(p: TestProject, query: Record<string, string>) {
  return h().app.inject({ method: 'GET', url: '/api/v1/campaigns', query, headers: p.headers });
}

describe('campaign names', () => {
  describe('400', () => {
    it.each(INSIDE)(
      'when create-campaign has name %j, then 400 naming control characters, nothing stored',
      async (name) => {
        const p = await newProject(h().deps);

        const res = await create(p, { name });

        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ msg: CONTROL, status: 400 });
        expect(await f.campaignRows(h().deps, p)).toEqual([]);
      },
    );

    it.each(INSIDE)(
      'when the edit has name %j, then 400 naming control characters, the name unchanged',
      async (name) => {
        const { app, deps } = h();
        const p = await newProject(deps);
        const c = await f.campaign(app, p, { name: 'Unchanged' });

        const res = await edit(p, c.display_id, { name });

        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ msg: CONTROL, status: 400 });
        expect((await f.campaignRow(deps, p, c.display_id))?.name).toBe('Unchanged');
      },
    );
  });

  describe('200 and 201', () => {
    it('when the name has a tab or newline only at its ends, then they are trimmed like spaces', async () => {
      const { deps } = h();
      const p = await newProject(deps);

      const created = await create(p, { name: '\tSummer sale\n' });
      const c = created.json().data as { display_id: string };
      const edited = await edit(p, c.display_id, { name: '\r\nWinter sale ' });

      expect(created.statusCode).toBe(201);
      expect(edited.statusCode).toBe(200);
      expect((await f.campaignRow(deps, p, c.display_id))?.name).toBe('Winter sale');
    });

    it('when the name has letters of any script and emoji, then it is kept', async () => {
      const p = await newProject(h().deps);

      const res = await create(p, { name: 'Été ☀️ 夏 — sale' });

      expect(res.statusCode).toBe(201);
      expect((await f.campaignRows(h().deps, p))[0]?.name).toBe('Été ☀️ 夏 — sale');
    });
  });
});

describe('GET /api/v1/campaigns filters', () => {
  it.each([
    ['domain', ''],
    ['domain', '   '],
    ['link', ''],
    ['link', '  '],
  ])('when %s=%j, then no filter applies: 200 with every campaign', async (key, value) => {
    const { app, deps } = h();
    const p = await newProject(deps);
    await f.domain(deps, p);
    await f.campaign(app, p, { name: 'One' });
    await f.campaign(app, p, { name: 'Two' });

    const res = await list(p, { [key]: value });

    expect(res.statusCode).toBe(200);
    expect(res.json().data.total_campaigns).toBe(2);
  });

  it('when domain and link are both empty beside a channel, then the channel alone filters', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    await f.domain(deps, p);
    await f.campaign(app, p, { name: 'On TikTok', ad_network: 'TIKTOK' });
    await f.campaign(app, p, { name: 'Organic' });

    const res = await list(p, { domain: '', link: '', channel: 'tiktok' });

    expect(res.statusCode).toBe(200);
    expect(res.json().data.campaigns.map((c: { name: string }) => c.name)).toEqual(['On TikTok']);
  });
});

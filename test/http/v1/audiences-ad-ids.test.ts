// GET /api/v1/audiences/export, the mobile advertising id on a user's line (README "Audience
// exports", "Identifiers"): the GAID, else the IDFA, of the user's most recently seen install whose
// value is an advertising id (a UUID in any case, not all zeros). An install holding something else
// an SDK sent ("unknown") must not hide an older install's real id. An install id shared by two
// projects lends neither its ad id nor its app opens to the other. Users go through the real client
// routes (test/support/audiences.ts).
import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventAt, exportRequest, landFacts, seedUser } from '../../support/audiences.ts';
import { attribute, init, useClientHarness } from '../../support/client.ts';
import { newProject } from '../../support/harness.ts';
import { at } from '../../support/users.ts';

const h = useClientHarness();

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const GAID_OLD = '38400000-8cf0-11bd-b23e-10b96e40000d';
const GAID_B = '11111111-2222-4333-8444-555555555555';
const WINDOW = { event: 'purchase', from: '2025-04-01', to: '2025-04-30' };
const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();

describe('200 advertising ids', () => {
  it('when the most recently seen install holds a value that is no advertising id, then the older real GAID is written', async () => {
    const p = await newProject(h().deps);
    await seedUser(h(), p, { userId: 'u1', email: 'u1@example.com', gaid: GAID_OLD, lastOpen: ago(5) });
    // A reinstall of the same user whose SDK sent a gaid that is not a UUID (init keeps it as sent).
    await seedUser(h(), p, { userId: 'u1', gaid: 'unknown' });
    await eventAt(h(), p, 'u1', 'purchase', '2025-04-10T10:00:00Z');
    await landFacts(h());

    const res = await exportRequest(h(), p, { ...WINDOW, format: 'google_device_ids' });

    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(`Mobile Device ID\n${GAID_OLD}\n`);
    expect(res.trailers?.['x-audience-skipped']).toBe('0');
  });

  it('when stored ids were not normalized (the newest all zeros, an older upper-case), then the older one is written lower-case', async () => {
    const p = await newProject(h().deps);
    const older = await seedUser(h(), p, { userId: 'u2', email: 'u2@example.com', gaid: GAID_OLD, lastOpen: ago(5) });
    const newest = await seedUser(h(), p, { userId: 'u2', gaid: GAID_B });
    // Rows as an older version could have written them.
    await h().deps.sql`UPDATE installs SET gaid = CASE install_instance_id
        WHEN ${older} THEN ${GAID_OLD.toUpperCase()} ELSE '00000000-0000-0000-0000-000000000000' END
      WHERE project_id = ${p.project.id} AND install_instance_id IN (${older}, ${newest})`;
    await eventAt(h(), p, 'u2', 'purchase', '2025-04-10T10:00:00Z');
    await landFacts(h());

    const res = await exportRequest(h(), p, { ...WINDOW, format: 'google_device_ids' });

    expect(res.body).toBe(`Mobile Device ID\n${GAID_OLD}\n`);
  });

  it('when two projects share a user id and an install id, then neither export takes the other project’s ad id or app opens', async () => {
    const a = await newProject(h().deps);
    const b = await newProject(h().deps);
    const iid = randomUUID();
    const old = Date.now() - 40 * DAY;
    // Project A: the install opened 40 days ago, no ad id. Project B: same install id, opened now, a GAID.
    await at(h(), old, () => init(h(), a.token, { install_instance_id: iid }));
    await attribute(h(), a, iid);
    await seedUser(h(), a, { userId: 'same', email: 'a@example.com', iid });
    await init(h(), b.token, { install_instance_id: iid, device_data: { gaid: GAID_B } });
    await attribute(h(), b, iid);
    await seedUser(h(), b, { userId: 'same', email: 'b@example.com', iid });
    const day = new Date(old).toISOString().slice(0, 10);
    await eventAt(h(), a, 'same', 'purchase', new Date(old).toISOString());
    await landFacts(h());

    const res = await exportRequest(h(), a, {
      event: 'purchase',
      from: day,
      to: day,
      format: 'meta',
      inactive_days: '30',
    });

    expect(res.body).toBe(`email,phone,madid\n${sha('a@example.com')},,\n`);
  });
});

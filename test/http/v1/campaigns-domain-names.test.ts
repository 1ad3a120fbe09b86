// POST /api/v1/create-campaign `domain` and the list's `domain=` filter, as a user writes the name.
// Link domains are stored normalised (lib/validate.ts normalizeDomain: punycode for an IDN, lower
// case, no trailing dot; the CLI accepts `bücher.example` or `Links.Example.com.`), and both look the
// name up the same way (store/postgres/domains.ts findDomainByName); a name normalizeDomain refuses
// is no domain, and the 400 texts echo the value as sent. The `link` filter reads hosts alike.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as f from '../../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

function create(p: TestProject, body: Record<string, unknown>) {
  return h().app.inject({ method: 'POST', url: '/api/v1/create-campaign', headers: p.headers, payload: body });
}
function list(p: TestProject, query: Record<string, string>) {
  return h().app.inject({
    method: 'GET',
    url: `/api/v1/campaigns?${new URLSearchParams(query).toString()}`,
    headers: p.headers,
  });
}

/** A project with a primary domain and a second, internationalised one (registered in its Unicode form). */
async function withIdnDomain() {
  const { deps } = h();
  const p = await newProject(deps);
  await f.domain(deps, p); // primary
  const unicode = `bücher-${randomUUID().slice(0, 8)}.example`;
  const idn = await f.domain(deps, p, { name: unicode });
  return { p, unicode, stored: idn.name };
}

describe('domain names as written by the user', () => {
  it('when create names an IDN domain in its Unicode form, then 201 on that domain', async () => {
    const { p, unicode, stored } = await withIdnDomain();
    expect(stored.startsWith('xn--')).toBe(true); // the CLI took the Unicode form and stored punycode

    const res = await create(p, { name: 'IDN', domain: unicode });

    expect(res.statusCode).toBe(201);
    expect(res.json().data.domain).toBe(stored);
  });

  it('when create names a domain with a trailing dot (a fully qualified name), then 201 on that domain', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const d = await f.domain(deps, p);

    const res = await create(p, { name: 'FQDN', domain: `${d.name.toUpperCase()}.` });

    expect(res.statusCode).toBe(201);
    expect(res.json().data.domain).toBe(d.name);
  });

  it('when the list filters on an IDN domain in its Unicode form, then its campaigns', async () => {
    const { p, unicode, stored } = await withIdnDomain();
    const c = await f.campaign(h().app, p, { domain: stored });

    const res = await list(p, { domain: unicode });

    expect(res.statusCode).toBe(200);
    expect(res.json().data.campaigns.map((x: { display_id: string }) => x.display_id)).toEqual([c.display_id]);
  });

  it('when the list filters on a domain with a trailing dot, then its campaigns', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const d = await f.domain(deps, p);
    const c = await f.campaign(h().app, p);

    const res = await list(p, { domain: `${d.name}.` });

    expect(res.statusCode).toBe(200);
    expect(res.json().data.campaigns.map((x: { display_id: string }) => x.display_id)).toEqual([c.display_id]);
  });

  it('when the link filter names an IDN host in its Unicode form, then that campaign', async () => {
    const { p, unicode, stored } = await withIdnDomain();
    const c = await f.campaign(h().app, p, { domain: stored });

    const res = await list(p, { link: `https://${unicode}/?c=${c.display_id}` });

    expect(res.statusCode).toBe(200);
    expect(res.json().data.campaigns[0]).toMatchObject({
      display_id: c.display_id,
      domain: stored,
      link: `https://${stored}/?c=${c.display_id}`,
      shareable_link: `https://${stored}/${c.display_id}`,
    });
  });

  it('when create names the punycode form, then 201 and the list shows the stored name', async () => {
    const { p, stored } = await withIdnDomain();

    const res = await create(p, { name: 'IDN', domain: stored.toUpperCase() });

    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({
      domain: stored,
      link: `https://${stored}/?c=${res.json().data.display_id}`,
    });
  });

  it('when create names a domain that is no host name, then 400 Domain not found in project', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const d = await f.domain(deps, p);

    for (const domain of [`${d.name}/x`, `https://${d.name}`, `${d.name}..`, `${d.name}\u0000`]) {
      const res = await create(p, { name: 'Bad', domain });

      expect(res.json()).toEqual({ msg: 'Domain not found in project', status: 400 });
    }
    expect(await f.campaignRows(deps, p)).toEqual([]);
  });

  it("when the list filters on another project's domain or a non-host in Unicode form, then 400 echoing the value as sent", async () => {
    const { deps } = h();
    const p = await newProject(deps);
    await f.domain(deps, p);
    const other = await withIdnDomain();

    for (const domain of [other.unicode, `${other.unicode.toUpperCase()}.`, 'Bücher Straße']) {
      const res = await list(p, { domain });

      expect(res.json()).toEqual({
        msg: `Invalid domain '${domain}'. Domain not found for this project.`,
        status: 400,
      });
    }
  });
});

// /.well-known/apple-app-site-association and /.well-known/assetlinks.json (product notes "Deep
// linking"): served per link domain from the owning project's settings, 404 with `{}` when the
// project has not set the file or the host is no link domain.
import { describe, expect, it } from 'vitest';
import { updateWellKnown } from '../../../src/store/postgres/well-known.ts';
import * as f from '../../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';

const h = useHarness();

const AASA_PATH = '/.well-known/apple-app-site-association';
const ASSETLINKS_PATH = '/.well-known/assetlinks.json';

const aasaFor = (appId: string) => ({ applinks: { details: [{ appIDs: [appId], components: [{ '/': '/*' }] }] } });
const assetlinksFor = (pkg: string) => [
  {
    relation: ['delegate_permission/common.handle_all_urls'],
    target: { namespace: 'android_app', package_name: pkg, sha256_cert_fingerprints: ['AA:BB'] },
  },
];

function get(url: string, host: string) {
  return h().app.inject({ method: 'GET', url, headers: { host } });
}

async function projectWithDomain(): Promise<{ p: TestProject; host: string }> {
  const { deps } = h();
  const p = await newProject(deps);
  const d = await f.domain(deps, p);
  return { p, host: d.name };
}

describe('GET /.well-known/*', () => {
  describe('200', () => {
    it('when the project set both files, then each domain serves them as JSON', async () => {
      const { deps } = h();
      const { p, host } = await projectWithDomain();
      const second = await f.domain(deps, p);
      await updateWellKnown(deps.sql, p.project.id, {
        appleAppSiteAssociation: aasaFor('TEAM.com.example'),
        assetlinks: assetlinksFor('com.example'),
      });
      for (const name of [host, second.name, `${host.toUpperCase()}:443`]) {
        const aasa = await get(AASA_PATH, name);
        expect(aasa.statusCode).toBe(200);
        expect(aasa.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(aasa.json()).toEqual(aasaFor('TEAM.com.example'));
        const links = await get(ASSETLINKS_PATH, name);
        expect(links.statusCode).toBe(200);
        expect(links.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(links.json()).toEqual(assetlinksFor('com.example'));
      }
    });

    it("when two projects set their files, then each domain serves its own project's file", async () => {
      const { deps } = h();
      const a = await projectWithDomain();
      const b = await projectWithDomain();
      await updateWellKnown(deps.sql, a.p.project.id, { appleAppSiteAssociation: aasaFor('A.app') });
      await updateWellKnown(deps.sql, b.p.project.id, { appleAppSiteAssociation: aasaFor('B.app') });
      expect((await get(AASA_PATH, a.host)).json()).toEqual(aasaFor('A.app'));
      expect((await get(AASA_PATH, b.host)).json()).toEqual(aasaFor('B.app'));
    });
  });

  describe('404', () => {
    it('when the project has not set a file, then 404 with {}', async () => {
      const { deps } = h();
      const { p, host } = await projectWithDomain();
      await updateWellKnown(deps.sql, p.project.id, { assetlinks: assetlinksFor('com.only.android') });
      const aasa = await get(AASA_PATH, host);
      expect(aasa.statusCode).toBe(404);
      expect(aasa.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(aasa.json()).toEqual({});
      expect((await get(ASSETLINKS_PATH, host)).statusCode).toBe(200);
    });

    it('when the host is no link domain (or the service host), then 404 with {}', async () => {
      for (const host of ['unknown.example', 'attr.test']) {
        for (const path of [AASA_PATH, ASSETLINKS_PATH]) {
          const res = await get(path, host);
          expect(res.statusCode).toBe(404);
          expect(res.json()).toEqual({});
        }
      }
    });
  });
});

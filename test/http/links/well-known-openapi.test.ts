// The well-known answers against /openapi.json: assetlinks.json is a JSON array.
// README "Link handler": "`GET /.well-known/assetlinks.json` serve[s] ... the files stored with
// `projects set-well-known`" and the CLI row: "`assetlinks.json` (a JSON array)". /openapi.json
// described the 200 of /.well-known/assetlinks.json as a JSON object, so every real answer failed
// the document (the schema was shared with the AASA file).
import { describe, expect, it } from 'vitest';
import { updateWellKnown } from '../../../src/store/postgres/well-known.ts';
import * as f from '../../support/factories.ts';
import { newProject, useHarness } from '../../support/harness.ts';
import { answerProblems, fetchDoc } from '../../support/openapi.ts';

const h = useHarness();

describe('GET /.well-known/assetlinks.json and /openapi.json', () => {
  it('when a project has set its Digital Asset Links array, then the 200 answer validates against the document', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const d = await f.domain(deps, p);
    const assetlinks = [
      {
        relation: ['delegate_permission/common.handle_all_urls'],
        target: { namespace: 'android_app', package_name: 'com.example', sha256_cert_fingerprints: ['AA:BB'] },
      },
    ];
    await updateWellKnown(deps.sql, p.project.id, { assetlinks });

    const res = await app.inject({ method: 'GET', url: '/.well-known/assetlinks.json', headers: { host: d.name } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(assetlinks);
    expect(answerProblems(await fetchDoc(app), 'GET', '/.well-known/assetlinks.json', res)).toEqual([]);
  });
});

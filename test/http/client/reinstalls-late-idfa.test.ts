// A reinstall found by an IDFA that arrives after the install was decided. README "Attribution":
// "iOS sends idfa only once ATT is granted, usually after the first launch", and a later init's
// device id is taken; real-clients §5.2: the idfa key is omitted until ATT is authorized. The
// install is decided on its first launch, without the IDFA; when the later init brings an IDFA an
// earlier install of the project had (within the reattribution window), the install is marked a
// reinstall in Postgres (get-attribution-result's match.reinstall), as a login marks one. Its
// `attributions` fact stays as decided: reports keep the first decision.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { setAttributionSettings } from '../../../src/domain/projects/set-attribution-settings.ts';
import { attribute, attributionFacts, flushFacts, installRows, randomIp } from '../../support/client.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';
import { attributionResult, iosInit, iosInstallId } from '../../support/remarketing.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

/** An earlier install of the device with its IDFA (ATT granted then), decided. */
async function earlierInstall(p: TestProject, idfa: string): Promise<string> {
  const iid = iosInstallId();
  await iosInit(h(), p, iid, { idfa, idfv: randomUUID().toUpperCase() }, randomIp());
  await attribute(h(), p, iid);
  return iid;
}

/** The reinstall: decided on its first launch (no IDFA), then a second launch once ATT is granted. */
async function reinstallWithLateIdfa(p: TestProject, idfa: string): Promise<string> {
  const idfv = randomUUID().toUpperCase();
  const iid = iosInstallId();
  const ip = randomIp();
  await iosInit(h(), p, iid, { idfv }, ip);
  expect((await attribute(h(), p, iid))?.kind).toBe('install');
  expect((await iosInit(h(), p, iid, { idfv, idfa }, ip)).statusCode).toBe(202);
  return iid;
}

async function installRow(p: TestProject, iid: string) {
  return (await installRows(h().deps, p)).find((r) => r.install_instance_id === iid);
}

describe('an IDFA that arrives after the decision', () => {
  it('when ATT is granted only after the first launch of the reinstall, then the install becomes a reinstall', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const idfa = randomUUID().toUpperCase();
    const iid1 = await earlierInstall(p, idfa);

    const iid2 = await reinstallWithLateIdfa(p, idfa);

    expect(await installRow(p, iid2)).toMatchObject({ idfa: idfa.toLowerCase(), is_reinstall: true });
    expect(await installRow(p, iid1)).toMatchObject({ is_reinstall: false });
    const res = await attributionResult(h(), p, `device_identifier=${idfa}`);
    expect(res.json().data.match).toMatchObject({ reinstall: true, method: 'organic' });
    // Reports keep the first decision: the attributions table has no sign column to correct it with.
    await flushFacts(h());
    expect((await attributionFacts(deps, p)).map((f) => [f.install_instance_id, f.kind])).toEqual([
      [iid1, 'install'],
      [iid2, 'install'],
    ]);
  });

  it('when the late IDFA was never seen before in the project, then the install stays an install', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    await earlierInstall(p, randomUUID().toUpperCase());

    const iid = await reinstallWithLateIdfa(p, randomUUID().toUpperCase());

    expect(await installRow(p, iid)).toMatchObject({ is_reinstall: false });
  });

  it('when the earlier install with that IDFA is older than the reattribution window, then the install stays an install', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    await setAttributionSettings(deps, p.project.id, { reattribution_window_days: 30 });
    const idfa = randomUUID().toUpperCase();
    const iid1 = await earlierInstall(p, idfa);
    await deps.sql`UPDATE installs SET created_at = now() - interval '31 days'
      WHERE project_id = ${p.project.id} AND install_instance_id = ${iid1}`;

    const iid2 = await reinstallWithLateIdfa(p, idfa);

    expect(await installRow(p, iid2)).toMatchObject({ idfa: idfa.toLowerCase(), is_reinstall: false });
  });

  it('when the app opens again with the same IDFA, then nothing changes', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const idfa = randomUUID().toUpperCase();
    await earlierInstall(p, idfa);
    const iid = await reinstallWithLateIdfa(p, idfa);
    const before = await installRow(p, iid);

    const res = await iosInit(h(), p, iid, { idfv: before?.idfv, idfa }, randomIp());

    expect(res.statusCode).toBe(202);
    expect(await installRow(p, iid)).toMatchObject({
      is_reinstall: true,
      decision_id: before?.decision_id,
      open_count: (before?.open_count ?? 0) + 1,
    });
  });
});

// Reinstalls of legacy React Native 1.x installs (real-clients §1: platform "REACT_NATIVE"; §5.1:
// the RN-1.x device_data keys). RN-1.x src/helper.ts sends device_id = react-native-device-info
// getDeviceId(), the hardware model ("iPhone14,2" on iOS, the board name on Android), android_id
// = getAndroidId() (the ANDROID_ID; "unknown" on iOS), idfa and idfv (getUniqueId) on iOS and gaid
// on Android. Read as a device id, the model made every later install of that model a reinstall.
// real-clients §1: "Accept unknown values and missing platform."
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { attribute, init, installRows, randomIp } from '../../support/client.ts';
import { newProject, useHarness } from '../../support/harness.ts';
import { iosInstallId } from '../../support/remarketing.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

/** An RN-1.x init from an iPhone 13 Pro (getDeviceId "iPhone14,2"). */
function rnIphone(ids: { idfa?: string | null; idfv: string }) {
  return {
    platform: 'REACT_NATIVE',
    install_instance_id: iosInstallId(),
    device_data: {
      android_id: 'unknown',
      device_id: 'iPhone14,2',
      device: 'iPhone',
      base_os: 'iOS',
      system_version: '17.4',
      gaid: null,
      idfa: ids.idfa ?? null,
      idfv: ids.idfv,
    },
  };
}

/** An RN-1.x init from an Android phone on the "taro" board (Snapdragon 8 Gen 1). */
function rnAndroid(androidId: string, gaid: string | null) {
  return {
    platform: 'REACT_NATIVE',
    install_instance_id: iosInstallId(),
    device_data: {
      android_id: androidId,
      device_id: 'taro',
      base_os: '',
      system_version: '14',
      gaid,
      idfa: null,
      idfv: null,
    },
  };
}

describe('RN-1.x iPhones', () => {
  it('when two different iPhones of the same model install through RN-1.x, then the second is a new install, not a reinstall', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const first = rnIphone({ idfv: randomUUID().toUpperCase() });
    const second = rnIphone({ idfv: randomUUID().toUpperCase() });
    expect((await init(h(), p.token, first, randomIp())).statusCode).toBe(202);
    await attribute(h(), p, first.install_instance_id);
    expect((await init(h(), p.token, second, randomIp())).statusCode).toBe(202);

    expect((await attribute(h(), p, second.install_instance_id))?.kind).toBe('install');
  });

  it('when an RN-1.x iPhone reinstalls with the same IDFA, then it is a reinstall (idfa and idfv are read whatever the platform)', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const idfa = randomUUID().toUpperCase();
    const idfv = randomUUID().toUpperCase();
    const first = rnIphone({ idfa, idfv });
    await init(h(), p.token, first, randomIp());
    await attribute(h(), p, first.install_instance_id);
    const second = rnIphone({ idfa, idfv: randomUUID().toUpperCase() });
    await init(h(), p.token, second, randomIp());

    expect((await attribute(h(), p, second.install_instance_id))?.kind).toBe('reinstall');
    const row = (await installRows(deps, p)).find((r) => r.install_instance_id === first.install_instance_id);
    expect(row).toMatchObject({ idfa: idfa.toLowerCase(), idfv: idfv.toLowerCase(), android_id: null, gaid: null });
  });
});

describe('RN-1.x Android phones', () => {
  it('when two different Android phones with the same board install through RN-1.x, then the second is a new install, not a reinstall', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const first = rnAndroid(randomBytes(8).toString('hex'), randomUUID());
    const second = rnAndroid(randomBytes(8).toString('hex'), randomUUID());
    await init(h(), p.token, first, randomIp());
    await attribute(h(), p, first.install_instance_id);
    await init(h(), p.token, second, randomIp());

    expect((await attribute(h(), p, second.install_instance_id))?.kind).toBe('install');
  });

  it('when an RN-1.x Android phone reinstalls without a GAID (ad tracking limited), then its android_id makes it a reinstall', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const androidId = randomBytes(8).toString('hex').toUpperCase();
    const first = rnAndroid(androidId, null);
    await init(h(), p.token, first, randomIp());
    await attribute(h(), p, first.install_instance_id);
    const second = rnAndroid(androidId, null);
    await init(h(), p.token, second, randomIp());

    expect((await attribute(h(), p, second.install_instance_id))?.kind).toBe('reinstall');
    const row = (await installRows(deps, p)).find((r) => r.install_instance_id === first.install_instance_id);
    expect(row).toMatchObject({ android_id: androidId.toLowerCase(), idfa: null, idfv: null });
  });
});

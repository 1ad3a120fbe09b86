// init body (spec + real-clients §4.1). `link` counts only when it is an http(s) URL.
import type { InitInput } from '../../../domain/identity/register-install.ts';
import { isSafeWebUrl } from '../../../lib/validate.ts';
import { asRecord } from '../common.ts';
import { optionalObject, optionalString, readInstallId, readPlatform } from './common.ts';

export function parseInit(body: unknown): InitInput {
  const b = asRecord(body);
  const link = optionalString(b, 'link', 2048);
  return {
    installInstanceId: readInstallId(b),
    platform: readPlatform(b),
    deviceData: optionalObject(b, 'device_data'),
    appVersion: optionalString(b, 'app_version', 64) ?? '',
    packageVersion: optionalString(b, 'package_version', 64) ?? '',
    link: link && isSafeWebUrl(link) ? link : null,
  };
}

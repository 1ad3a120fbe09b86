// integrations body (real-clients §4.9): integration_info, a map of integration id names to
// strings (in practice {clevertap_id}). Non-string values, over-long keys or values, or more than
// 100 keys are refused (400), never cut or coerced.
import { MAX_INTEGRATION_KEYS } from '../../../domain/identity/save-integrations.ts';
import { charLength } from '../../../lib/validate.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { asRecord } from '../common.ts';
import { readInstallId, storable } from './common.ts';

const MAX_KEY = 128;
const MAX_VALUE = 512;

function readIntegrationInfo(v: unknown): Record<string, string> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new ApiError(400, MSG.integrationInfoInvalid);
  }
  const entries = Object.entries(v);
  if (entries.length > MAX_INTEGRATION_KEYS) {
    throw new ApiError(400, MSG.integrationInfoTooManyKeys);
  }
  const out: Record<string, string> = {};
  for (const [k, value] of entries) {
    const key = storable(k);
    // '__pro\u0000to__' becomes '__proto__' once storable: refused, never a prototype.
    if (
      key === '' ||
      key === '__proto__' ||
      charLength(key) > MAX_KEY ||
      typeof value !== 'string' ||
      charLength(value) > MAX_VALUE
    ) {
      throw new ApiError(400, MSG.integrationInfoInvalid);
    }
    out[key] = storable(value);
  }
  return out;
}

export function parseIntegrations(body: unknown): {
  installInstanceId: string;
  integrationInfo: Record<string, string>;
} {
  const b = asRecord(body);
  return { installInstanceId: readInstallId(b), integrationInfo: readIntegrationInfo(b.integration_info) };
}

// Changes a project's attribution settings (windows, thresholds, methods). Unset values keep
// their current value; the result is validated with the same schema the engine reads.
import type { PgDeps } from '../../deps.ts';
import { findAttributionSettings, updateAttributionSettings } from '../../store/postgres/attribution-settings.ts';
import { attributionSettingsSchema } from '../attribution/settings.ts';
import { InputError } from './input-error.ts';
import { requireProject } from './require-project.ts';

const METHODS = ['play_referrer', 'link', 'ad_id', 'fingerprint', 'network_resolvers'];

export type AttributionSettingsPatch = Partial<{
  click_lookback_hours: number;
  fingerprint_window_hours: number;
  reattribution_window_days: number;
  reengagement_inactivity_days: number;
  suspicious_ctit_seconds: number;
  methods: Partial<Record<'play_referrer' | 'link' | 'ad_id' | 'fingerprint' | 'network_resolvers', boolean>>;
}>;

export async function setAttributionSettings(
  deps: Pick<PgDeps, 'sql'>,
  projectId: string,
  patch: AttributionSettingsPatch,
): Promise<Record<string, unknown>> {
  await requireProject(deps, projectId);
  const unknown = Object.keys(patch.methods ?? {}).filter((m) => !METHODS.includes(m));
  if (unknown.length > 0) {
    throw new InputError(`unknown method(s) ${unknown.join(', ')}; methods are ${METHODS.join(', ')}`);
  }
  const current = attributionSettingsSchema.parse((await findAttributionSettings(deps.sql, projectId)) ?? {});
  const merged = { ...current, ...patch, methods: { ...current.methods, ...(patch.methods ?? {}) } };
  const parsed = attributionSettingsSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InputError(`--${String(issue?.path.join('.') ?? 'setting').replaceAll('_', '-')}: ${issue?.message}`);
  }
  await updateAttributionSettings(deps.sql, projectId, parsed.data);
  return parsed.data;
}

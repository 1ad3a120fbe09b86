// Attribution settings per project, with industry defaults (click lookback 7 days, fingerprint
// window 24 h, reattribution window 90 days, CTIT under 10 s suspicious). The reattribution window
// bounds how long after an install of a device another install of it is a reinstall.
import { z } from 'zod';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

export const attributionSettingsSchema = z.object({
  click_lookback_hours: z
    .number()
    .int()
    .min(1)
    .max(90 * 24)
    .default(7 * 24),
  fingerprint_window_hours: z
    .number()
    .int()
    .min(0)
    .max(7 * 24)
    .default(24),
  reattribution_window_days: z.number().int().min(1).max(365).default(90),
  reengagement_inactivity_days: z.number().int().min(0).max(365).default(0),
  suspicious_ctit_seconds: z.number().int().min(0).max(3600).default(10),
  methods: z
    .object({
      play_referrer: z.boolean().default(true),
      link: z.boolean().default(true),
      ad_id: z.boolean().default(true),
      fingerprint: z.boolean().default(true),
      network_resolvers: z.boolean().default(true),
    })
    .prefault({}),
});

export type AttributionSettings = {
  clickLookbackMs: number;
  fingerprintWindowMs: number;
  reattributionWindowMs: number;
  reengagementInactivityMs: number;
  suspiciousCtitMs: number;
  methods: { playReferrer: boolean; link: boolean; adId: boolean; fingerprint: boolean; networkResolvers: boolean };
};

/** Parses stored settings; anything invalid falls back to the defaults. */
export function attributionSettings(stored: unknown): AttributionSettings {
  const parsed = attributionSettingsSchema.safeParse(stored ?? {});
  const s = parsed.success ? parsed.data : attributionSettingsSchema.parse({});
  return {
    clickLookbackMs: s.click_lookback_hours * HOUR,
    fingerprintWindowMs: s.fingerprint_window_hours * HOUR,
    reattributionWindowMs: s.reattribution_window_days * DAY,
    reengagementInactivityMs: s.reengagement_inactivity_days * DAY,
    suspiciousCtitMs: s.suspicious_ctit_seconds * 1000,
    methods: {
      playReferrer: s.methods.play_referrer,
      link: s.methods.link,
      adId: s.methods.ad_id,
      fingerprint: s.methods.fingerprint,
      networkResolvers: s.methods.network_resolvers,
    },
  };
}

/**
 * The earliest creation time of an earlier install of the same device that makes an install created
 * at `createdAt` a reinstall: a device last installed before the reattribution window is acquired
 * anew (a new install), as the industry's re-attribution window has it.
 */
export function reattributionSince(createdAt: Date, cfg: AttributionSettings): Date {
  return new Date(createdAt.getTime() - cfg.reattributionWindowMs);
}

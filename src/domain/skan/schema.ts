// A project's SKAN 4 conversion schema (product-notes: SKAdNetwork). Rules map activity within one
// postback window to a fine value (0-63, first window only in Apple's model, kept monotonic here),
// a coarse value and a lock. Every condition of a rule must hold (AND); among matching rules the
// highest fine value, the highest coarse value and any lock win. No match: 0 / low / unlocked.
import { z } from 'zod';
import { storable } from '../../lib/storable.ts';
import { charLength } from '../../lib/validate.ts';

export const COARSE_VALUES = ['low', 'medium', 'high'] as const;
export type Coarse = (typeof COARSE_VALUES)[number];

const amountRange = z
  .object({ min: z.number().nonnegative().optional(), max: z.number().positive().optional() })
  .strict()
  .refine((r) => r.min === undefined || r.max === undefined || r.min < r.max, 'min must be below max');

const conditionSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('signup') }).strict(),
  z
    .object({
      type: z.literal('event'),
      /** Cleaned as capture-event cleans event_name (NUL dropped, lone surrogate → U+FFFD), so it
       * matches the name stored for the client's event; then 1-255 characters, not blank. */
      name: z
        .string()
        .overwrite(storable)
        .min(1)
        .refine((n) => n.trim() !== '' && charLength(n) <= 255, 'must be 1-255 characters, not blank'),
      min_count: z.number().int().min(1).default(1),
      /** Sum of event_data.amount of this event in the window, [min, max). */
      amount: amountRange.optional(),
    })
    .strict(),
  z.object({ type: z.literal('revenue'), amount: amountRange }).strict(),
]);

const ruleSchema = z
  .object({
    fine: z.number().int().min(0).max(63),
    coarse: z.enum(COARSE_VALUES),
    lock: z.boolean().default(false),
    /** Windows the rule applies in (0: days 0-2, 1: 3-7, 2: 8-35); all when absent. */
    windows: z.array(z.number().int().min(0).max(2)).min(1).optional(),
    conditions: z.array(conditionSchema).min(1).max(10),
  })
  .strict();

export const skanSchemaSchema = z.object({ rules: z.array(ruleSchema).min(1).max(256) }).strict();

export type SkanSchema = z.infer<typeof skanSchemaSchema>;
export type SkanRule = SkanSchema['rules'][number];
export type SkanCondition = SkanRule['conditions'][number];

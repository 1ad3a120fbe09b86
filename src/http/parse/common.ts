// Shared parsing: a body must be a JSON object; the first failing check's text (the spec's, set as
// the zod `error` of each field, in the spec's order) becomes the 400. No coercion anywhere.
import type { z } from 'zod';
import { ApiError } from '../errors.ts';
import { MSG } from '../messages.ts';

export function asRecord(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) {
    return {};
  }
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new ApiError(400, MSG.bodyNotObject);
  }
  return body as Record<string, unknown>;
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown, status = 400): z.infer<S> {
  const r = schema.safeParse(value);
  if (!r.success) {
    throw new ApiError(status, r.error.issues[0]?.message ?? MSG.invalidRequestParameters);
  }
  return r.data;
}

/** A single query value: repeated keys (arrays) are refused by the caller's check. */
export function queryValue(query: unknown, key: string): string | string[] | undefined {
  const q = (query ?? {}) as Record<string, string | string[] | undefined>;
  return Object.hasOwn(q, key) ? q[key] : undefined;
}

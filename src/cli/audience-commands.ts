// `audiences export`: the audience segment CSV of GET /api/v1/audiences/export, written to a file.
// The flags are the query's parameters (--payment-type is payment_type, …) and go through the same
// parser, so both accept the same segments. The file is written as `<out>.partial` and renamed when
// complete: a failed export never leaves a file that looks whole. Stdout stays the command's result
// (the counts, or one JSON value with --json); a progress line on stderr once the segment passes a
// page of users. Opens ClickHouse: in embedded mode stop the server first, or use the API.
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Deps } from '../deps.ts';
import { exportAudience, PAGE_USERS } from '../domain/audiences/export-audience.ts';
import { InputError } from '../domain/projects/input-error.ts';
import { requireProject } from '../domain/projects/require-project.ts';
import { ApiError } from '../http/errors.ts';
import { parseAudienceQuery } from '../http/parse/v1/audiences.ts';
import type { CommandSpec } from './commands.ts';
import type { Flags } from './flags.ts';

const n = (v: number) => v.toLocaleString('en-US');
const QUERY_FLAGS = [
  'event',
  'payment-type',
  'from',
  'to',
  'format',
  'inactive-days',
  'inactive-by',
  'campaign',
  'channel',
  'platform',
  'phone-country-code',
] as const;

/** The flags as the HTTP query names them (`--payment-type` → payment_type). */
function queryOf(f: Flags): Record<string, string> {
  const q: Record<string, string> = {};
  for (const flag of QUERY_FLAGS) {
    const v = f[flag];
    if (typeof v === 'string') {
      q[flag.replaceAll('-', '_')] = v;
    }
  }
  return q;
}

/** A refusal of the parser or the campaign lookup is an input error (exit 2). */
function asInputError(err: unknown): unknown {
  return err instanceof ApiError && err.status < 500 ? new InputError(err.message) : err;
}

export const AUDIENCE_COMMANDS: CommandSpec[] = [
  {
    path: ['audiences', 'export'],
    summary:
      'write an audience segment CSV (users who did --event or a --payment-type in the window) for Meta Custom Audiences or Google Customer Match (stop an embedded-mode server first, or use GET /api/v1/audiences/export)',
    needs: 'all',
    flags: {
      project: { type: 'string', required: true, description: 'project id' },
      event: { type: 'string', description: 'custom event name (or --payment-type)' },
      'payment-type': { type: 'string', description: 'completed payments of this type, or any (or --event)' },
      from: { type: 'string', required: true, description: 'first day, YYYY-MM-DD, project time zone' },
      to: { type: 'string', required: true, description: 'last day (inclusive), YYYY-MM-DD' },
      format: { type: 'string', required: true, description: 'meta, google, google_device_ids or plain' },
      'inactive-days': { type: 'string', description: 'only users inactive for the last N days' },
      'inactive-by': { type: 'string', description: 'app_open (default) or action' },
      campaign: { type: 'string', description: 'campaign display id' },
      channel: { type: 'string', description: 'network code (META, GOOGLE, …) or ORGANIC' },
      platform: { type: 'string', description: 'ios or android' },
      'phone-country-code': { type: 'string', description: 'calling code for phones stored without one (91)' },
      out: { type: 'string', required: true, description: 'CSV file to write' },
    },
    run: async (deps, f, progress) => {
      const project = await requireProject(deps, String(f.project));
      let input: ReturnType<typeof parseAudienceQuery>;
      try {
        input = parseAudienceQuery(queryOf(f));
      } catch (err) {
        throw asInputError(err);
      }
      const out = path.resolve(String(f.out));
      const partial = `${out}.partial`;
      const onPage = (p: { users: number; rows: number; skipped: number }) => {
        if (p.users >= PAGE_USERS) {
          progress(`\r${n(p.users)} users read, ${n(p.rows)} rows written, ${n(p.skipped)} skipped`);
        }
      };
      const exp = await exportAudience(deps as Deps, project, input, { onPage }).catch((err: unknown) => {
        throw asInputError(err);
      });
      try {
        await pipeline(Readable.from(exp.chunks, { objectMode: false }), createWriteStream(partial));
        await rename(partial, out);
      } catch (err) {
        await rm(partial, { force: true });
        throw err;
      }
      const { rows, skipped } = exp.tally;
      return {
        json: { project_id: project.id, file: out, format: input.format, rows, skipped },
        text: `${n(rows)} rows written to ${out} (${input.format}); ${n(skipped)} users skipped: no identifier for the format`,
      };
    },
  },
];

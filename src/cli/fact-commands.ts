// The `facts` commands (fact pipeline: outbox backlog, dead letters, replay) and `users delete`
// (GDPR). Listed in COMMANDS (commands.ts). The facts commands touch only Postgres, so they run
// beside a live server in both modes; users delete also opens ClickHouse.
import type { Deps } from '../deps.ts';
import { listDeadLetters } from '../domain/facts/list-dead-letters.ts';
import { readFactStatus } from '../domain/facts/read-fact-status.ts';
import { replayDeadLetters } from '../domain/facts/replay-dead-letters.ts';
import { InputError } from '../domain/projects/input-error.ts';
import { requireProject } from '../domain/projects/require-project.ts';
import { deleteUser } from '../domain/users/delete-user.ts';
import { presentUserDeletion } from '../http/present/user-deletion.ts';
import { escapeControlChars } from '../lib/control-chars.ts';
import type { CommandSpec } from './commands.ts';
import type { Flags } from './flags.ts';
import { table } from './table.ts';

const opt = (f: Flags, k: string): string | undefined => (typeof f[k] === 'string' ? (f[k] as string) : undefined);
const TABLE = { table: { type: 'string', description: 'only this ClickHouse table (clicks, events, …)' } } as const;

export const FACT_COMMANDS: CommandSpec[] = [
  {
    path: ['facts', 'status'],
    summary: 'fact pipeline backlog: rows waiting for ClickHouse per table, oldest age, dead letters',
    needs: 'postgres',
    flags: {},
    run: async (deps) => {
      const s = await readFactStatus(deps);
      const json = {
        outbox: s.outbox.map((t) => ({
          table: t.table,
          rows: t.rows,
          claimed: t.claimed,
          bytes: t.bytes,
          oldest_age_seconds: t.oldestAgeSeconds,
        })),
        total_rows: s.totalRows,
        total_bytes: s.totalBytes,
        oldest_age_seconds: s.oldestAgeSeconds,
        backlog_max_rows: s.backlogMaxRows,
        over_cap: s.overCap,
        dead_letters: s.deadLetters,
      };
      const text = [
        `outbox: ${s.totalRows} row(s) waiting, ${s.totalBytes} bytes (cap ${s.backlogMaxRows} rows${s.overCap ? ', OVER CAP: ingest answers 503' : ''}), oldest ${s.oldestAgeSeconds}s`,
        table(
          ['table', 'rows', 'claimed', 'bytes', 'oldest_age_s'],
          s.outbox.map((t) => [
            t.table,
            String(t.rows),
            String(t.claimed),
            String(t.bytes),
            String(t.oldestAgeSeconds),
          ]),
        ),
        'dead letters:',
        table(
          ['table', 'pending', 'replayed'],
          s.deadLetters.map((d) => [d.table, String(d.pending), String(d.replayed)]),
        ),
      ].join('\n');
      return { json, text };
    },
  },
  {
    path: ['facts', 'dead-letters'],
    summary: 'facts ClickHouse refused: counts per table, most common reasons, and the oldest pending rows',
    needs: 'postgres',
    flags: { ...TABLE, limit: { type: 'string', description: 'rows to list (default 100)' } },
    run: async (deps, f) => {
      const l = await listDeadLetters(deps, { table: opt(f, 'table'), limit: opt(f, 'limit') });
      const json = {
        counts: l.counts,
        reasons: l.reasons,
        dead_letters: l.rows.map((d) => ({
          id: Number(d.id),
          table: d.table,
          fact_id: d.factId,
          project_id: d.projectId,
          reason: d.reason,
          failed_at: d.failedAt.toISOString(),
          row: d.row,
        })),
      };
      const text = [
        table(
          ['table', 'pending', 'replayed'],
          l.counts.map((c) => [c.table, String(c.pending), String(c.replayed)]),
        ),
        'reasons:',
        table(
          ['table', 'count', 'reason'],
          l.reasons.map((r) => [r.table, String(r.count), r.reason.slice(0, 120)]),
        ),
        'pending:',
        table(
          ['id', 'table', 'fact_id', 'failed_at', 'reason'],
          l.rows.map((d) => [
            d.id,
            d.table,
            d.factId,
            d.failedAt.toISOString(),
            d.reason.split('\n')[0]?.slice(0, 80) ?? '',
          ]),
        ),
      ].join('\n');
      return { json, text };
    },
  },
  {
    path: ['facts', 'replay-dead-letters'],
    summary:
      'send pending dead letters (fix their row in fact_dead_letters first) back to ClickHouse; never counted twice',
    needs: 'postgres',
    flags: { ...TABLE, id: { type: 'string', description: 'only this dead letter id' } },
    run: async (deps, f, progress) => {
      const r = await replayDeadLetters(deps, { table: opt(f, 'table'), id: opt(f, 'id') }, progress);
      return {
        json: { replayed: r.replayed, batches: r.batches, by_table: r.byTable },
        text: `${r.replayed} dead letter(s) queued again in ${r.batches} batch(es); the fact writer inserts them within seconds (see: facts status)`,
      };
    },
  },
  {
    path: ['users', 'delete'],
    summary:
      "delete one user's data (Postgres, ClickHouse raw and derived tables, caches) and report it (stop an embedded-mode server first, or use DELETE /api/v1/users/:user_id)",
    needs: 'all',
    flags: {
      project: { type: 'string', required: true, description: 'project id' },
      'user-id': { type: 'string', required: true, description: "the app's user id" },
    },
    run: async (deps, f) => {
      const project = await requireProject(deps, String(f.project));
      const userId = String(f['user-id']);
      const d = await deleteUser(deps as Deps, project, userId);
      if (!d) {
        throw new InputError(`user '${userId}' not found in project ${project.id}`);
      }
      const report = presentUserDeletion(d);
      const lines = [
        ...Object.entries(report.removed.postgres).map(([t, n]) => `  postgres ${t}: ${n}`),
        ...Object.entries(report.removed.clickhouse).map(([t, n]) => `  clickhouse ${t}: ${n}`),
        `  cache attribution_data: ${report.removed.cache.attribution_data}`,
      ];
      const left =
        d.clickhouseRemaining > 0 ? `\n(${d.clickhouseRemaining} ClickHouse row(s) still arriving; run it again)` : '';
      return {
        json: report,
        text: `user ${escapeControlChars(userId)} deleted; removed:\n${lines.join('\n')}${left}`,
      };
    },
  },
];

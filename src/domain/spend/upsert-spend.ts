// Upserts a batch of spend rows (endpoint, CSV import, sandbox generator, network pullers). Each row
// is validated on its own (a bad row is rejected with its reason, the rest go through); a row whose
// campaign display id is not a live campaign of the project is rejected. Rows are keyed by day ×
// campaign × ad set × creative × keyword × network (network defaults to the campaign's); within a
// batch the last row of a key wins. A restatement replaces the stored values, and in the same
// transaction writes the `spend` facts that move ClickHouse along: sign -1 with the old values, sign
// 1 with the new. An identical restatement writes nothing. Writers of one project are serialised,
// so two concurrent batches can never both write a +1 for the same new key.
import type { Deps } from '../../deps.ts';
import { newTimeId } from '../../lib/ids.ts';
import { insertOutboxRows, type OutboxRow } from '../../store/postgres/fact-outbox.ts';
import { asSql } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import {
  findSpendCampaigns,
  findSpendRows,
  lockProjectSpend,
  type SpendKey,
  type SpendRecord,
  upsertSpendRows,
} from '../../store/postgres/spend-rows.ts';
import { spendFactRow } from './spend-fact.ts';
import { MAX_SPEND_ROWS, readSpendRow, SPEND_REASON, type SpendRow } from './spend-row.ts';

export type SpendRejection = { index: number; reason: string };
export type UpsertSpendResult = { accepted: number; unchanged: number; rejected: SpendRejection[] };
export type UpsertSpendOptions = {
  /** spend_rows.source: api, csv, sandbox_ads or a puller's network code in lower case. */
  source: string;
  /** How a rejection names another row of the batch (default `row <index>`; the CSV import says `line <n>`). */
  rowLabel?: (index: number) => string;
};

type Candidate = { index: number; row: SpendRow; campaignId: number; displayId: string; network: string };

// Keeps each multi-row outbox insert well under Postgres's 65535 bind parameters.
const OUTBOX_CHUNK = 1000;

const keyOf = (k: SpendKey) => JSON.stringify([k.day, k.campaignId, k.adSetId, k.creativeId, k.keywordId, k.network]);

const sameValues = (a: SpendRecord, b: SpendRecord): boolean =>
  a.amount === b.amount &&
  a.impressions === b.impressions &&
  a.clicks === b.clicks &&
  a.adSetName === b.adSetName &&
  a.creativeName === b.creativeName &&
  a.keywordName === b.keywordName;

/** Valid rows of live campaigns, the last one per key; everything else is rejected with a reason. */
async function candidates(
  deps: Pick<Deps, 'sql'>,
  project: Project,
  rows: readonly unknown[],
  rejected: SpendRejection[],
  rowLabel: (index: number) => string,
): Promise<Map<string, Candidate>> {
  const valid: { index: number; row: SpendRow }[] = [];
  rows.forEach((raw, index) => {
    const r = readSpendRow(raw);
    if ('reason' in r) {
      rejected.push({ index, reason: r.reason });
    } else {
      valid.push({ index, row: r });
    }
  });
  const campaigns = await findSpendCampaigns(deps.sql, project.id, [...new Set(valid.map((v) => v.row.displayId))]);
  const byKey = new Map<string, Candidate>();
  for (const { index, row } of valid) {
    const c = campaigns.get(row.displayId);
    if (!c) {
      rejected.push({ index, reason: SPEND_REASON.campaignNotFound(row.displayId) });
      continue;
    }
    const candidate = { index, row, campaignId: c.id, displayId: c.displayId, network: row.network ?? c.network };
    const key = keyOf({ ...row, campaignId: c.id, network: candidate.network });
    const earlier = byKey.get(key);
    if (earlier) {
      rejected.push({ index: earlier.index, reason: SPEND_REASON.duplicate(rowLabel(index)) });
    }
    byKey.set(key, candidate);
  }
  return byKey;
}

function merged(c: Candidate, stored: SpendRecord | undefined): SpendRecord {
  return {
    day: c.row.day,
    campaignId: c.campaignId,
    adSetId: c.row.adSetId,
    creativeId: c.row.creativeId,
    keywordId: c.row.keywordId,
    network: c.network,
    // An absent name keeps the stored one: sources that know only ids never erase names.
    adSetName: c.row.adSetName ?? stored?.adSetName ?? '',
    creativeName: c.row.creativeName ?? stored?.creativeName ?? '',
    keywordName: c.row.keywordName ?? stored?.keywordName ?? '',
    amount: c.row.amount,
    impressions: c.row.impressions,
    clicks: c.row.clicks,
  };
}

export async function upsertSpend(
  deps: Pick<Deps, 'sql' | 'now'>,
  project: Project,
  rows: readonly unknown[],
  opts: UpsertSpendOptions,
): Promise<UpsertSpendResult> {
  if (rows.length > MAX_SPEND_ROWS) {
    throw new Error(`upsertSpend takes at most ${MAX_SPEND_ROWS} rows (got ${rows.length})`);
  }
  const rejected: SpendRejection[] = [];
  const byKey = await candidates(deps, project, rows, rejected, opts.rowLabel ?? ((i) => `row ${i}`));
  rejected.sort((a, b) => a.index - b.index);
  const list = [...byKey.values()];
  if (list.length === 0) {
    return { accepted: 0, unchanged: 0, rejected };
  }
  const now = deps.now();
  const changed = await deps.sql.begin(async (txh) => {
    const tx = asSql(txh);
    await lockProjectSpend(tx, project.id);
    const keys = list.map((c) => ({ ...c.row, campaignId: c.campaignId, network: c.network }));
    const stored = new Map((await findSpendRows(tx, project.id, keys)).map((r) => [keyOf(r), r]));
    const writes: SpendRecord[] = [];
    const facts: OutboxRow[] = [];
    const fact = (c: Candidate, v: SpendRecord, sign: 1 | -1): OutboxRow => {
      const factId = `sp_${newTimeId()}`;
      const row = spendFactRow(project.id, factId, { ...v, displayId: c.displayId }, sign, now);
      return { table: 'spend', factId, projectId: project.id, row };
    };
    for (const c of list) {
      const old = stored.get(keyOf({ ...c.row, campaignId: c.campaignId, network: c.network }));
      const next = merged(c, old);
      if (old && sameValues(old, next)) {
        continue;
      }
      writes.push(next);
      if (old) {
        facts.push(fact(c, old, -1));
      }
      facts.push(fact(c, next, 1));
    }
    await upsertSpendRows(tx, project.id, writes, opts.source);
    for (let i = 0; i < facts.length; i += OUTBOX_CHUNK) {
      await insertOutboxRows(tx, facts.slice(i, i + OUTBOX_CHUNK));
    }
    return writes.length;
  });
  return { accepted: changed, unchanged: list.length - changed, rejected };
}

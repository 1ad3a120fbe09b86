// Exports an audience segment as CSV text, page by page: ClickHouse gives the next page of the
// segment's user ids (keyset, PAGE_USERS at a time), Postgres their identifiers and the inactivity
// check, and each page becomes one chunk of lines. Nothing holds more than a page, so a project of
// millions of users streams in constant memory. The campaign is resolved and the first page read
// before the first chunk is given out, so a bad filter or a store that is down fails the request
// before any byte of the file (HTTP: the {msg, status} envelope, not a cut-off download).
import type { Deps } from '../../deps.ts';
import { ApiError } from '../../http/errors.ts';
import { MSG } from '../../http/messages.ts';
import { formatChTime } from '../../lib/time.ts';
import { findSegmentUserIds, type SegmentPageQuery } from '../../store/clickhouse/audience-users.ts';
import { foreground } from '../../store/clickhouse/priority.ts';
import { findAudienceIdentities } from '../../store/postgres/audience-identities.ts';
import { findCampaignByDisplayId } from '../../store/postgres/campaigns.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { NOT_REVENUE_TYPES } from '../events/revenue-types.ts';
import { reportWindow } from '../reporting/window.ts';
import type { AudienceInput, AudienceTally } from './audience-input.ts';
import { audienceHeader, audienceLine } from './format-row.ts';

export const PAGE_USERS = 5000;
const DAY_MS = 86_400_000;

export type AudienceProgress = { users: number } & AudienceTally;
export type AudienceExport = {
  /** The CSV: the header and the first page, then a chunk per page. */
  chunks: AsyncGenerator<string>;
  /** Filled in as the chunks are read; final once they are all read. */
  tally: AudienceTally;
};
type ExportDeps = Pick<Deps, 'sql' | 'ch' | 'now'>;
export type ExportOptions = {
  /** Told of each page read (the CLI's progress line). */
  onPage?: (p: AudienceProgress) => void;
  pageUsers?: number;
  /**
   * Called once the request is found valid (its campaign resolved), before the segment is read:
   * the HTTP route takes the key's rate budget there, so a refused request costs none of it.
   */
  admit?: () => Promise<void>;
};

const dayStart = (day: string, shiftDays: number) => formatChTime(Date.parse(`${day}T00:00:00Z`) + shiftDays * DAY_MS);

async function pageQuery(
  deps: ExportDeps,
  project: Project,
  input: AudienceInput,
  pageUsers: number,
): Promise<SegmentPageQuery> {
  let campaignId: number | null = null;
  if (input.campaign !== null) {
    const c = await findCampaignByDisplayId(deps.sql, project.id, input.campaign);
    if (!c) {
      throw new ApiError(404, MSG.campaignNotFound);
    }
    campaignId = c.id;
  }
  const organic = input.channel === 'ORGANIC';
  const w = reportWindow(input.from, input.to);
  const action = input.action;
  return {
    projectId: project.id,
    source: action.kind === 'event' ? 'events' : 'payments',
    name: action.kind === 'event' ? action.name : action.type,
    notTypes: NOT_REVENUE_TYPES, // `any`: purchases only; a named type is selected as named
    from: w.from,
    to: w.to,
    // No zone is more than a day away from UTC: a day's margin on each side of the window.
    tsFrom: dayStart(w.from, -1),
    tsTo: dayStart(w.to, 2),
    campaignId: organic ? 0 : campaignId,
    network: organic ? null : input.channel,
    platform: input.platform,
    notSince: input.inactive?.by === 'action' ? formatChTime(deps.now() - input.inactive.days * DAY_MS) : null,
    after: '',
    limit: pageUsers,
  };
}

async function* pages(
  deps: ExportDeps,
  input: AudienceInput,
  query: SegmentPageQuery,
  tally: AudienceTally,
  onPage?: (p: AudienceProgress) => void,
): AsyncGenerator<string> {
  const seenBefore = input.inactive?.by === 'app_open' ? new Date(deps.now() - input.inactive.days * DAY_MS) : null;
  // channel ORGANIC (campaign 0) and a named campaign exclude each other: no fact is both.
  const impossible = input.channel === 'ORGANIC' && input.campaign !== null;
  let head = audienceHeader(input.format);
  let after = '';
  let users = 0;
  for (;;) {
    const ids = impossible ? [] : await foreground(() => findSegmentUserIds(deps.ch, { ...query, after }));
    const found = await findAudienceIdentities(deps.sql, query.projectId, ids, seenBefore);
    let chunk = head;
    head = '';
    for (const identity of found) {
      const line = audienceLine(input.format, identity, input.phoneCountryCode);
      if (line === undefined) {
        tally.skipped += 1;
      } else {
        tally.rows += 1;
        chunk += line;
      }
    }
    users += ids.length;
    onPage?.({ users, ...tally });
    if (chunk !== '') {
      yield chunk;
    }
    const last = ids[ids.length - 1];
    if (last === undefined || ids.length < query.limit) {
      return;
    }
    after = last;
  }
}

/**
 * The segment's CSV. Throws ApiError 404 for a campaign the project does not have, what `admit`
 * throws, and whatever a store throws on the first page, before any chunk; a later page's failure
 * ends the chunks with it.
 */
export async function exportAudience(
  deps: ExportDeps,
  project: Project,
  input: AudienceInput,
  opts: ExportOptions = {},
): Promise<AudienceExport> {
  const query = await pageQuery(deps, project, input, opts.pageUsers ?? PAGE_USERS);
  await opts.admit?.();
  const tally: AudienceTally = { rows: 0, skipped: 0 };
  const it = pages(deps, input, query, tally, opts.onPage);
  const first = await it.next();
  async function* chunks(): AsyncGenerator<string> {
    if (!first.done) {
      yield first.value;
      yield* it;
    }
  }
  return { chunks: chunks(), tally };
}

// attributed-users: the users a campaign brought, i.e. users whose registering install (the one
// their first trigger came from) is attributed to the campaign, filtered on when they registered.
// The window's wall times are read in `timezone` (DST rule in lib/local-time.ts), both ends
// inclusive. A start after the end is an empty window: 200 with no users (the spec lists no error
// for it, and a window is still well-formed when it is empty).
import type { Deps } from '../../deps.ts';
import { ApiError } from '../../http/errors.ts';
import { MSG } from '../../http/messages.ts';
import { type LocalDateTime, zonedTimeToUtc } from '../../lib/local-time.ts';
import { pageOffset } from '../../lib/page-offset.ts';
import { type CampaignRecord, findCampaignByDisplayId } from '../../store/postgres/campaigns.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { type AttributedUserRow, findAttributedUsers } from '../../store/postgres/users.ts';

export type ListAttributedUsersInput = {
  displayId: string;
  start: LocalDateTime | null;
  end: LocalDateTime | null;
  timezone: string;
  page: number;
  limit: number;
};

export type AttributedUsersPage = {
  campaign: CampaignRecord;
  users: AttributedUserRow[];
  total: number;
  page: number;
  limit: number;
  pages: number;
};

// Postgres timestamptz and Date#toISOString agree on years 1970-9999; no user registered outside.
const MIN_MS = 0;
const MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

function instant(t: LocalDateTime | null, timezone: string): Date | null {
  return t ? new Date(Math.min(MAX_MS, Math.max(MIN_MS, zonedTimeToUtc(t, timezone)))) : null;
}

export async function listAttributedUsers(
  deps: Pick<Deps, 'sql'>,
  project: Project,
  input: ListAttributedUsersInput,
): Promise<AttributedUsersPage> {
  const campaign = await findCampaignByDisplayId(deps.sql, project.id, input.displayId);
  if (!campaign) {
    throw new ApiError(404, MSG.resourceNotFound);
  }
  const from = instant(input.start, input.timezone);
  const to = instant(input.end, input.timezone);
  const offset = pageOffset(input.page, input.limit);
  const { total, rows } =
    from && to && from > to
      ? { total: 0, rows: [] }
      : await findAttributedUsers(deps.sql, project.id, campaign.id, { from, to }, { offset, limit: input.limit });
  return {
    campaign,
    users: rows,
    total,
    page: input.page,
    limit: input.limit,
    pages: Math.ceil(total / input.limit),
  };
}

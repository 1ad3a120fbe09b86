// list_events (MCP): the custom event names the project has recorded (project_event_names, the
// report's own list: at most KNOWN_NAMES_LIMIT, by name) with their counts and amounts in a window.
// Counts are read as the report reads its custom_events (campaign_event_daily at campaign level),
// over the live campaigns (what the report's rows add up to) and organic installs (campaign 0).
import type { Deps } from '../../deps.ts';
import { foreground } from '../../store/clickhouse/priority.ts';
import { selectEventLevels } from '../../store/clickhouse/report-levels.ts';
import { KNOWN_NAMES_LIMIT, selectKnownEventNames } from '../../store/clickhouse/reporting.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { addDecimal } from '../reporting/decimal.ts';
import { liveCampaigns, type StatsWindow, statsScope } from './stats-window.ts';

export type EventCount = {
  name: string;
  attributedCount: number;
  organicCount: number;
  /** Sums of the events' amounts (decimal text, display currency). */
  attributedAmount: string;
  organicAmount: string;
};

export type EventCounts = { window: StatsWindow; events: EventCount[]; namesCut: boolean };

export function countEvents(
  deps: Pick<Deps, 'sql' | 'ch' | 'config'>,
  project: Project,
  window: StatsWindow,
): Promise<EventCounts> {
  const scope = statsScope(project, window);
  return foreground(async () => {
    const [known, campaigns] = await Promise.all([
      // One name more than listed: exactly KNOWN_NAMES_LIMIT names are all listed, not cut.
      selectKnownEventNames(deps.ch, project.id, { events: null, payments: null }, KNOWN_NAMES_LIMIT + 1),
      liveCampaigns(deps, project),
    ]);
    const ids = [0, ...campaigns.map((c) => c.id)];
    const names = known.events.slice(0, KNOWN_NAMES_LIMIT);
    const rows = await selectEventLevels(deps.ch, { ...scope, ids }, names, []);
    const byName = new Map<string, EventCount>(
      names.map((name) => [
        name,
        { name, attributedCount: 0, organicCount: 0, attributedAmount: '0', organicAmount: '0' },
      ]),
    );
    for (const r of rows) {
      const e = byName.get(r.name);
      if (!e || r.key.level !== 'campaign') {
        continue;
      }
      if (r.key.campaignId === 0) {
        e.organicCount += r.count;
        e.organicAmount = addDecimal(e.organicAmount, r.amount);
      } else {
        e.attributedCount += r.count;
        e.attributedAmount = addDecimal(e.attributedAmount, r.amount);
      }
    }
    const events = [...byName.values()].sort(
      (a, b) => b.attributedCount + b.organicCount - (a.attributedCount + a.organicCount) || (a.name < b.name ? -1 : 1),
    );
    return { window, events, namesCut: known.events.length > KNOWN_NAMES_LIMIT };
  });
}

// The window the MCP reporting tools read: the reporting endpoint's inclusive project-local days
// (null = unbounded on that side), over the campaigns the report lists (live ones). Shared by
// get-project-stats.ts and count-events.ts.
import type { Deps } from '../../deps.ts';
import type { ReportScope } from '../../store/clickhouse/reporting.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { listReportCampaigns, type ReportCampaignRecord } from '../../store/postgres/report-campaigns.ts';
import { reportWindow } from '../reporting/window.ts';

export type StatsWindow = { from: string | null; to: string | null };

export function statsScope(project: Project, w: StatsWindow): ReportScope {
  return { projectId: project.id, ...reportWindow(w.from, w.to), platform: '' };
}

/** Every live campaign of the project: the rows an unfiltered report lists. */
export function liveCampaigns(deps: Pick<Deps, 'sql' | 'config'>, project: Project): Promise<ReportCampaignRecord[]> {
  return listReportCampaigns(deps.sql, project.id, {
    active: null,
    network: null,
    networkAccountId: null,
    searchPattern: null,
    searchDisplayId: null,
    publicUrl: deps.config.publicUrl,
  });
}

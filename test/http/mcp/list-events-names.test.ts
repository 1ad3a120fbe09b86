// list_events's names_cut (README "MCP server"): the tool lists the first 500 recorded custom event
// names by name, and names_cut says only whether the project has recorded more than those 500.
// One name is read past the limit to tell exactly 500 from more.
import { describe, expect, it } from 'vitest';
import { newProject, useHarness } from '../../support/harness.ts';
import * as r from '../../support/report-facts.ts';
import { callTool, mcpToken } from './mcp-client.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const names = (n: number) => Array.from({ length: n }, (_, i) => `ev${String(i).padStart(3, '0')}`);

async function listEventsOf(recorded: string[]) {
  const { deps, app } = h();
  const p = await newProject(deps);
  const token = await mcpToken(deps, p);
  const x = r.newInstall({ campaignId: 0 }, '2025-01-10');
  await r.insertFacts(
    deps,
    'events',
    recorded.map((name) => r.event(p, x, 'u', name, '2025-01-10')),
  );
  return callTool(app, token, 'list_events');
}

const listed = (data: Record<string, unknown>) => (data.events as { name: string }[]).map((e) => e.name).sort();

describe('list_events names_cut', () => {
  it('when the project has recorded exactly 500 event names, then all 500 are listed and names_cut is false', async () => {
    const res = await listEventsOf(names(500));

    expect(res.isError).toBe(false);
    expect(listed(res.data)).toEqual(names(500));
    expect(res.data.names_cut).toBe(false);
  });

  it('when the project has recorded 501 event names, then the first 500 by name are listed and names_cut is true', async () => {
    const res = await listEventsOf(names(501));

    expect(res.isError).toBe(false);
    expect(listed(res.data)).toEqual(names(500));
    expect(res.data.names_cut).toBe(true);
  });
});

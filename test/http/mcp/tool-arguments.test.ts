// MCP tool arguments read as the matching endpoints read them (tool-inputs.ts): tools/call checks
// only the published inputSchema's keys and JSON types, then hands the values to the endpoint's own
// parser. So a blank (or, for lookup ids, over-long) value is "not given" where the endpoint says so,
// a refused value carries the endpoint's text and status (spec: page / limit are 422), and a filter
// the endpoint takes in any case is taken. get_billing_usage refuses a period whose from is after
// its to (given or defaulted) with reporting's from > to text.
import { describe, expect, it } from 'vitest';
import { attributedInstall } from '../../support/client.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';
import { callTool, mcpToken } from './mcp-client.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

async function project(): Promise<{ p: TestProject; token: string }> {
  const p = await newProject(h().deps);
  return { p, token: await mcpToken(h().deps, p) };
}

const api = (p: TestProject, url: string) => h().app.inject({ method: 'GET', url, headers: p.headers });

describe('blank arguments count as not given, as the endpoints read them', () => {
  it('when lookup_attribution gets a blank or over-long user_id and a device_identifier, then the device’s attribution (as the endpoint answers)', async () => {
    const { p, token } = await project();
    const { gaid } = await attributedInstall(h(), p);
    const http = await api(p, `/api/v1/get-attribution-result?user_id=&device_identifier=${gaid}`);
    const longHttp = await api(
      p,
      `/api/v1/get-attribution-result?user_id=${'u'.repeat(257)}&device_identifier=${gaid}`,
    );

    const blank = await callTool(h().app, token, 'lookup_attribution', { user_id: '', device_identifier: gaid });
    const space = await callTool(h().app, token, 'lookup_attribution', { user_id: ' ', device_identifier: gaid });
    const long = await callTool(h().app, token, 'lookup_attribution', {
      user_id: 'u'.repeat(257),
      device_identifier: gaid,
    });

    expect(http.statusCode).toBe(200);
    expect(longHttp.json()).toEqual(http.json());
    for (const res of [blank, space, long]) {
      expect(res).toMatchObject({ isError: false, data: { found: true, attribution: http.json().data } });
    }
  });

  it('when get_project_stats gets from "" and to "", then the all-time totals (reporting reads from= and to= as absent)', async () => {
    const { p, token } = await project();
    const http = await api(p, '/api/v1/reporting/campaigns?from=&to=');

    const allTime = await callTool(h().app, token, 'get_project_stats');
    const blank = await callTool(h().app, token, 'get_project_stats', { from: '', to: '' });

    expect(http.statusCode).toBe(200);
    expect(blank.isError).toBe(false);
    expect(blank.data).toEqual(allTime.data);
  });

  it('when get_billing_usage gets a blank month, from and to, then the current month', async () => {
    const { token } = await project();

    const current = await callTool(h().app, token, 'get_billing_usage');
    const blank = await callTool(h().app, token, 'get_billing_usage', { month: ' ', from: '', to: '' });

    expect(blank.isError).toBe(false);
    expect(blank.data).toEqual(current.data);
  });
});

describe('refusals carry the endpoint’s text and status', () => {
  it('when get_project_stats gets a date not in YYYY-MM-DD form, then the reporting endpoint’s 400 text', async () => {
    const { p, token } = await project();
    const http = await api(p, '/api/v1/reporting/campaigns?from=2025-1-1');

    const res = await callTool(h().app, token, 'get_project_stats', { from: '2025-1-1' });

    expect(http.json()).toEqual({
      msg: "Invalid from '2025-1-1'. Use a calendar date in the form YYYY-MM-DD.",
      status: 400,
    });
    expect(res).toMatchObject({ isError: true, data: http.json() });
  });

  it('when list_campaigns gets page 0, page 1.5 or limit 1001, then GET /api/v1/campaigns’s 422 texts (spec)', async () => {
    const { p, token } = await project();
    const page0 = await api(p, '/api/v1/campaigns?page=0');
    const pageHalf = await api(p, '/api/v1/campaigns?page=1.5');
    const limit1001 = await api(p, '/api/v1/campaigns?limit=1001');

    const badPage = await callTool(h().app, token, 'list_campaigns', { page: 0 });
    const halfPage = await callTool(h().app, token, 'list_campaigns', { page: 1.5 });
    const badLimit = await callTool(h().app, token, 'list_campaigns', { limit: 1001 });

    expect(page0.json()).toEqual({ msg: "Invalid page number '0'. Page must be a positive integer.", status: 422 });
    expect(pageHalf.json()).toEqual({
      msg: "Invalid page number '1.5'. Page must be a positive integer.",
      status: 422,
    });
    expect(limit1001.json()).toEqual({ msg: "Limit '1001' exceeds the maximum of 1000.", status: 422 });
    expect(badPage).toMatchObject({ isError: true, data: page0.json() });
    expect(halfPage).toMatchObject({ isError: true, data: pageHalf.json() });
    expect(badLimit).toMatchObject({ isError: true, data: limit1001.json() });
  });

  it('when list_campaigns gets a filter in lower case or an unknown one, then what GET /api/v1/campaigns answers', async () => {
    const { p, token } = await project();
    const lower = await api(p, '/api/v1/campaigns?filter=active');
    const unknown = await api(p, '/api/v1/campaigns?filter=SOME');

    const lowerTool = await callTool(h().app, token, 'list_campaigns', { filter: 'active' });
    const unknownTool = await callTool(h().app, token, 'list_campaigns', { filter: 'SOME' });

    expect(lower.statusCode).toBe(200);
    expect(lowerTool).toMatchObject({ isError: false, data: { msg: lower.json().msg, ...lower.json().data } });
    expect(unknown.statusCode).toBe(400);
    expect(unknownTool).toMatchObject({ isError: true, data: unknown.json() });
  });

  it('when a tool gets a number for a text argument or an unknown key, then the type problem named (not the endpoint’s)', async () => {
    const { token } = await project();

    const number = await callTool(h().app, token, 'get_project_stats', { from: 20250101 });
    const extra = await callTool(h().app, token, 'list_events', { since: '2025-01-01' });

    expect(number).toMatchObject({ isError: true, data: { status: 400 } });
    expect(number.data.msg).toMatch(/^Invalid arguments: from: /);
    expect(extra).toMatchObject({ isError: true, data: { status: 400 } });
    expect(extra.data.msg).toContain('since');
  });
});

describe('get_billing_usage periods that end before they start', () => {
  it('when from is after to (given, or today by default) or to is before 1970-01-01, then reporting’s from > to 400', async () => {
    const { p, token } = await project();
    const reversed = await api(p, '/api/v1/reporting/campaigns?from=2025-02-10&to=2025-01-01');

    const given = await callTool(h().app, token, 'get_billing_usage', { from: '2025-02-10', to: '2025-01-01' });
    const future = await callTool(h().app, token, 'get_billing_usage', { from: '2999-01-01' });
    const ancient = await callTool(h().app, token, 'get_billing_usage', { to: '1969-12-31' });

    expect(reversed.json()).toEqual({ msg: "'from' must not be after 'to'.", status: 400 });
    for (const res of [given, future, ancient]) {
      expect(res).toMatchObject({ isError: true, data: reversed.json() });
    }
  });
});

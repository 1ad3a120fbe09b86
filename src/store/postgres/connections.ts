// SQL of a project's outgoing connections (sql/migrations/0012_deliveries.sql): the Meta
// Conversions API connection, event mappings, webhooks and the uploaded catalog.

import { lookupCache } from './lookup-cache.ts';
import type { Sql } from './pool.ts';

export type MetaConnection = {
  projectId: string;
  datasetId: string;
  accessTokenEnc: string;
  graphVersion: string | null;
  active: boolean;
  activatedAt: Date | null;
};

type ConnectionRow = {
  project_id: string;
  dataset_id: string;
  access_token_enc: string;
  graph_version: string | null;
  active: boolean;
  activated_at: Date | null;
};

const toConnection = (r: ConnectionRow): MetaConnection => ({
  projectId: r.project_id,
  datasetId: r.dataset_id,
  accessTokenEnc: r.access_token_enc,
  graphVersion: r.graph_version,
  active: r.active,
  activatedAt: r.activated_at,
});

/** activated_at moves only when the connection turns active; inactive clears it. */
export async function upsertMetaConnection(
  sql: Sql,
  c: Omit<MetaConnection, 'activatedAt'>,
  now: Date,
): Promise<MetaConnection> {
  const rows = await sql<ConnectionRow[]>`
    INSERT INTO network_connections (project_id, network, dataset_id, access_token_enc, graph_version, active, activated_at)
    VALUES (${c.projectId}, 'META', ${c.datasetId}, ${c.accessTokenEnc}, ${c.graphVersion}, ${c.active},
      ${c.active ? now : null})
    ON CONFLICT (project_id, network) DO UPDATE SET
      dataset_id = EXCLUDED.dataset_id, access_token_enc = EXCLUDED.access_token_enc,
      graph_version = EXCLUDED.graph_version, active = EXCLUDED.active, updated_at = ${now},
      activated_at = CASE WHEN NOT EXCLUDED.active THEN NULL
        WHEN network_connections.active THEN network_connections.activated_at ELSE EXCLUDED.activated_at END
    RETURNING project_id, dataset_id, access_token_enc, graph_version, active, activated_at`;
  forgetCachedMappings(c.projectId);
  return toConnection(rows[0] as ConnectionRow);
}

export async function findMetaConnection(sql: Sql, projectId: string): Promise<MetaConnection | undefined> {
  const rows = await sql<ConnectionRow[]>`
    SELECT project_id, dataset_id, access_token_enc, graph_version, active, activated_at
    FROM network_connections WHERE project_id = ${projectId} AND network = 'META'`;
  return rows[0] ? toConnection(rows[0]) : undefined;
}

export type SourceKind = 'event' | 'payment';

export async function upsertEventMapping(
  sql: Sql,
  m: { projectId: string; kind: SourceKind; name: string; standardEvent: string },
): Promise<void> {
  await sql`
    INSERT INTO event_mappings (project_id, source_kind, source_name, standard_event)
    VALUES (${m.projectId}, ${m.kind}, ${m.name}, ${m.standardEvent})
    ON CONFLICT (project_id, source_kind, source_name) DO UPDATE SET standard_event = EXCLUDED.standard_event`;
  forgetCachedMappings(m.projectId);
}

export async function listEventMappings(
  sql: Sql,
  projectId: string,
): Promise<{ kind: SourceKind; name: string; standardEvent: string }[]> {
  const rows = await sql<{ source_kind: SourceKind; source_name: string; standard_event: string }[]>`
    SELECT source_kind, source_name, standard_event FROM event_mappings
    WHERE project_id = ${projectId} ORDER BY source_kind, source_name`;
  return rows.map((r) => ({ kind: r.source_kind, name: r.source_name, standardEvent: r.standard_event }));
}

/** The standard event a fact maps to, only while the project's Meta connection is active. */
// Every capture asks whether its name is mapped to a Meta standard event. A project has a handful
// of mappings, so its whole set (empty while Meta is not connected) is read once and cached.
const mappingsByProject = lookupCache<Map<string, string>>();

export function forgetCachedMappings(projectId: string): void {
  mappingsByProject.forgetKey(projectId);
}

export async function findActiveMapping(
  sql: Sql,
  projectId: string,
  kind: SourceKind,
  name: string,
): Promise<string | undefined> {
  const byName = await mappingsByProject.get(projectId, async () => {
    const rows = await sql<{ source_kind: string; source_name: string; standard_event: string }[]>`
      SELECT m.source_kind, m.source_name, m.standard_event FROM event_mappings m
      JOIN network_connections c ON c.project_id = m.project_id AND c.network = 'META' AND c.active
      WHERE m.project_id = ${projectId}`;
    return new Map(rows.map((r) => [`${r.source_kind}\u0000${r.source_name}`, r.standard_event]));
  });
  return byName.get(`${kind}\u0000${name}`);
}

export type Webhook = { id: string; projectId: string; url: string; secretEnc: string; events: string[] };

/** Adds the webhook, or gives the URL's row a new secret; `replaced`: an active one had a secret in use. */
export async function insertWebhook(sql: Sql, w: Omit<Webhook, 'id'>): Promise<Webhook & { replaced: boolean }> {
  const rows = await sql<{ id: string; replaced: boolean }[]>`
    WITH prior AS (SELECT active FROM webhooks WHERE project_id = ${w.projectId} AND url = ${w.url})
    INSERT INTO webhooks (project_id, url, secret_enc, events) VALUES (${w.projectId}, ${w.url}, ${w.secretEnc}, ${w.events})
    ON CONFLICT (project_id, url) DO UPDATE SET secret_enc = EXCLUDED.secret_enc, events = EXCLUDED.events, active = true
    RETURNING id::text AS id, (SELECT coalesce(bool_or(active), false) FROM prior) AS replaced`;
  const row = rows[0] as { id: string; replaced: boolean };
  return { ...w, id: row.id, replaced: row.replaced };
}

export async function findActiveWebhooks(sql: Sql, projectId: string, event?: string): Promise<Webhook[]> {
  const rows = await sql<{ id: string; project_id: string; url: string; secret_enc: string; events: string[] }[]>`
    SELECT id::text AS id, project_id, url, secret_enc, events FROM webhooks
    WHERE project_id = ${projectId} AND active ${event === undefined ? sql`` : sql`AND ${event} = ANY (events)`}
    ORDER BY id`;
  return rows.map((r) => ({
    id: r.id,
    projectId: r.project_id,
    url: r.url,
    secretEnc: r.secret_enc,
    events: r.events,
  }));
}

export async function findWebhook(sql: Sql, id: string): Promise<Webhook | undefined> {
  const rows = await sql<{ id: string; project_id: string; url: string; secret_enc: string; events: string[] }[]>`
    SELECT id::text AS id, project_id, url, secret_enc, events FROM webhooks WHERE id = ${id} AND active`;
  const r = rows[0];
  return r ? { id: r.id, projectId: r.project_id, url: r.url, secretEnc: r.secret_enc, events: r.events } : undefined;
}

export async function insertCatalogProducts(sql: Sql, projectId: string, ids: string[]): Promise<number> {
  if (ids.length === 0) {
    return 0;
  }
  const rows = await sql`
    INSERT INTO catalog_products (project_id, product_id)
    SELECT ${projectId}, unnest(${ids}::text[]) ON CONFLICT DO NOTHING RETURNING product_id`;
  return rows.length;
}

/** Distinct product ids forwarded to Meta, and how many of them the catalog holds. */
export async function countCatalogMatches(
  sql: Sql,
  projectId: string,
): Promise<{ forwarded: number; matched: number }> {
  const rows = await sql<{ forwarded: number; matched: number }[]>`
    WITH ids AS (
      SELECT DISTINCT unnest(product_ids) AS product_id FROM deliveries
      WHERE project_id = ${projectId} AND destination = 'meta' AND status = 'sent')
    SELECT count(*)::int AS forwarded,
      count(*) FILTER (WHERE EXISTS (SELECT 1 FROM catalog_products c
        WHERE c.project_id = ${projectId} AND c.product_id = ids.product_id))::int AS matched
    FROM ids`;
  return rows[0] ?? { forwarded: 0, matched: 0 };
}

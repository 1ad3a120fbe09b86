-- Web SDK event_id claims (domain/web/capture-web-event.ts) get a table of their own. They shared
-- capture-event's seen_event_ids under a `web:` prefix, so an app event whose own id was `web:X`
-- took web event X's claim (and the public project token could pre-claim such app ids). The claims
-- held so far are copied over without their prefix, so a web event sent again after the upgrade is
-- still a duplicate. They also stay in seen_event_ids: a `web:` row there may be an app event's own
-- claim, which must keep stopping that event's retries.
CREATE TABLE seen_web_event_ids (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  event_id text NOT NULL,                             -- the SDK's event_id, as sent
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, event_id)
);

INSERT INTO seen_web_event_ids (project_id, event_id, created_at)
SELECT project_id, substr(event_id, 5), created_at FROM seen_event_ids
WHERE event_id LIKE 'web:%' AND event_id <> 'web:'
ON CONFLICT (project_id, event_id) DO NOTHING;

-- A user deletion under way (0023) also keeps the browsers (Web SDK visitor ids) the user was
-- identified on: an identify still in the fact outbox is deleted in the Postgres step, and a re-run
-- would no longer find its browser's anonymous events in ClickHouse.
ALTER TABLE user_deletions
  ADD COLUMN visitor_ids text[] NOT NULL DEFAULT '{}';  -- web_events.visitor_id of the user's browsers

-- Webhook bodies describe the install's decided attribution (product notes, "Webhooks").
-- A sign-up can arrive while its install is still being attributed (init answers 202 and
-- attribution runs in the background): its webhook row is written with the sign-up, held
-- (held_for_attribution, next_attempt_at an hour ahead) and filled with the attribution by the
-- decision, which makes it due right after the install's own row. A row whose install is still
-- undecided when its hour ends goes dead with the reason (domain/deliveries/settle-held-deliveries.ts).
ALTER TABLE deliveries ADD COLUMN held_for_attribution boolean NOT NULL DEFAULT false;

-- What the network's own touch told beyond ad set and creative, for the webhooks'
-- google_campaign_details / meta_campaign_details: the winning click's gclid, gbraid and
-- utm_source, or the Meta install referrer's campaign group, account, objective and placement.
-- NULL for installs decided before this migration (and for organic ones).
ALTER TABLE installs ADD COLUMN network_details jsonb;

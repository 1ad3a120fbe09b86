-- Network resolvers (Meta install referrer, Apple Search Ads): the network's own campaign id of a
-- campaign, so a network's claim maps to our campaign, and the project's Meta Install Referrer
-- decryption key, stored encrypted (src/lib/secrets.ts; never in clear text at rest).
ALTER TABLE campaigns
  ADD COLUMN network_campaign_id text;            -- the ad network's campaign id (ASA campaignId, Meta campaign_id)

CREATE INDEX campaigns_network_campaign_id ON campaigns (project_id, network, network_campaign_id)
  WHERE network_campaign_id IS NOT NULL AND deleted_at IS NULL;
-- Meta claims also match the campaign's existing meta_campaign_id.
CREATE INDEX campaigns_meta_campaign_id ON campaigns (project_id, meta_campaign_id)
  WHERE meta_campaign_id IS NOT NULL AND deleted_at IS NULL;

ALTER TABLE projects
  ADD COLUMN meta_referrer_key_enc text;          -- AES-256-GCM under SECRETS_KEY: 'v1.<iv|ciphertext|tag base64url>'

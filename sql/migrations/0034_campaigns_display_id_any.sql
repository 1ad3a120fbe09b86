-- Display ids across projects. A project without a domain gets links on the service's own host,
-- where the display id alone names the campaign, so create-campaign now refuses a display id that
-- any campaign of any project holds, deleted ones included (under an advisory lock per id), and
-- the service host's link handler treats an id held by two projects as ambiguous (404). Both look
-- an id up over all rows, deleted ones too, so this index replaces 0005's live-only one. It is not
-- unique: a database from before may hold one id in two projects (unique per project only, then),
-- and those rows stay as they are.
CREATE INDEX campaigns_display_id ON campaigns (display_id);
DROP INDEX IF EXISTS campaigns_display_id_live;

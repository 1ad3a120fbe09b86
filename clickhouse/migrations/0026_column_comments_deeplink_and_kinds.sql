-- A re-engagement's decision row (kind reengagement, handle-deeplink) has the method `deeplink`, and
-- its windows are the re-engagement's own (reattribution window, re-engagement inactivity), but the
-- column comments of attributions and v_attributed_installs listed only the install-time methods and
-- windows, so a data engineer reading them could not tell what `deeplink` is. install_events.kind
-- listed install and app_open only, while uninstall tracking (0015) also writes
-- reinstall_after_uninstall. Comments only: no data or type changes. Re-runnable (each statement
-- sets the same comment again).

ALTER TABLE attributions
  COMMENT COLUMN method 'play_referrer, link, ad_id, fingerprint, meta_referrer, apple_search_ads or organic; deeplink for a reengagement';

ALTER TABLE attributions
  COMMENT COLUMN windows 'JSON of the windows applied (lookback, fingerprint, reattribution; a reengagement: reattribution, reengagement inactivity)';

ALTER TABLE v_attributed_installs
  COMMENT COLUMN method 'play_referrer, link, ad_id, fingerprint, meta_referrer, apple_search_ads or organic; deeplink for a reengagement';

ALTER TABLE v_attributed_installs
  COMMENT COLUMN windows 'JSON of the windows applied (lookback, fingerprint, reattribution; a reengagement: reattribution, reengagement inactivity)';

ALTER TABLE install_events
  COMMENT COLUMN kind 'install (first init of an install id), app_open, or reinstall_after_uninstall (an uninstalled install came back)';

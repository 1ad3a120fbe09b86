// Inputs and outputs of the attribution engine. The engine is pure: stores gather these.
export type Click = {
  clickId: string;
  ts: number; // epoch ms
  campaignId: number;
  displayId: string;
  platform: string;
  ip: string;
  os: string;
  osVersion: string;
  deviceModel: string;
  network: string;
  adSetId: string;
  adSetName: string;
  creativeId: string;
  creativeName: string;
  keywordId: string;
  keywordName: string;
  /** Google's click ids and the click's utm_source ('' when absent): the webhooks' google_campaign_details. */
  gclid: string;
  gbraid: string;
  utmSource: string;
  /**
   * The link's own parameters, encoded (read-click-params.ts readLinkParams): returned inside the
   * campaign deeplink once the click wins. Both stores fill it; optional only so the engine's
   * fixtures need not name it (absent is read as '').
   */
  linkParams?: string;
};

/**
 * What a network's own touch tells beyond ad set and creative (webhooks' google_campaign_details /
 * meta_campaign_details): snake_case keys as the webhook names them, only those known.
 */
export type NetworkDetails = Record<string, string | boolean>;

/** A claim resolved from a network's own signal (Meta install referrer, Apple Search Ads token). */
export type NetworkClaim = {
  method: 'meta_referrer' | 'apple_search_ads';
  network: string;
  campaignId: number; // our campaign the network campaign maps to
  displayId: string;
  /** Epoch ms of the touch as the network tells it (Apple clickDate / impressionDate, Meta actual_timestamp); null when it sent none. */
  ts: number | null;
  touchType: 'click' | 'view';
  adSetId: string;
  adSetName: string;
  creativeId: string;
  creativeName: string;
  keywordId: string;
  keywordName: string;
  details?: NetworkDetails;
};

export type InstallSignals = {
  installTs: number;
  platform: string;
  ip: string;
  os: string;
  osVersion: string;
  deviceModel: string;
  /** Play Install Referrer: our click id if it carries one, and when the install began. */
  playReferrer: { clickId: string | null; installBeginTs: number | null } | null;
  /** A campaign named by a link given on init or reported through handle-deeplink. */
  linkCampaign: { campaignId: number; displayId: string; network: string } | null;
  networkClaim: NetworkClaim | null;
  /**
   * A device id of the install was seen before in this project under another install id created
   * within the reattribution window (an older one makes it a new install).
   */
  seenBefore: boolean;
};

export type Candidates = {
  referrerClick: Click | null;
  adIdClicks: Click[];
  ipClicks: Click[];
  /**
   * Clicks that already decided another install (installs.click_id): a fingerprint match is a guess
   * about which device clicked, and one click is one device, so it takes such a click no more.
   */
  takenClickIds?: ReadonlySet<string>;
  /** Campaigns deleted at or before the install: their clicks are no candidates of any method. */
  deletedCampaignIds?: ReadonlySet<number>;
};

export type Method =
  | 'play_referrer'
  | 'link'
  | 'ad_id'
  | 'fingerprint'
  | 'meta_referrer'
  | 'apple_search_ads'
  | 'organic';

export type CandidateNote = {
  method: Method;
  click_id: string;
  campaign_id: number;
  outcome: 'won' | 'lost' | 'ineligible';
  reason: string;
};

export type Decision = {
  kind: 'install' | 'reinstall';
  method: Method;
  attributionType: 'ORGANIC' | 'INORGANIC';
  touchType: 'click' | 'view' | '';
  campaignId: number;
  displayId: string;
  network: string;
  adSetId: string;
  adSetName: string;
  creativeId: string;
  creativeName: string;
  keywordId: string;
  keywordName: string;
  click: Click | null;
  /**
   * When the winning click happened (installs.store_click_at): our click's time, or the click time
   * a network's claim carried; absent for a view, a link, or a claim without its touch time.
   */
  clickTs?: number;
  /** From the winning click or network claim; saved on the install for its webhooks. */
  networkDetails?: NetworkDetails;
  /** Install time minus clickTs; -1 without it. */
  ctitMs: number;
  confidence: number;
  suspicious: boolean;
  suspiciousReason: string;
  candidates: CandidateNote[];
  windows: { click_lookback_ms: number; fingerprint_window_ms: number; reattribution_window_ms: number };
};

// The attribution job: decides once per install and records the decision both on the install
// (Postgres, for client answers) and as an `attributions` fact (ClickHouse, for SQL and reports),
// in one transaction. Candidate clicks come from ClickHouse and from the outbox (clicks not yet
// moved), so a decision never waits for the writer. The job asks to be retried only while an ad
// network's API is briefly unavailable (a few times, see resolvers.ts; then it decides without it).
import type { Deps } from '../../deps.ts';
import { newTimeId } from '../../lib/ids.ts';
import { microBatcher } from '../../lib/micro-batch.ts';
import { formatChTime, localDay } from '../../lib/time.ts';
import type { AttributeInstallPayload } from '../../queue/payloads.ts';
import { findAttributionSettingsCached } from '../../store/postgres/attribution-settings.ts';
import { claimClickForFingerprint } from '../../store/postgres/candidate-clicks.ts';
import { insertOutboxRows, wakeRestingRows } from '../../store/postgres/fact-outbox.ts';
import { findInstalls, type InstallRecord, saveInstallDecision } from '../../store/postgres/installs.ts';
import { asSql, beginPipelined } from '../../store/postgres/pool.ts';
import { findProjectByIdCached, type Project } from '../../store/postgres/projects.ts';
import { queueDeliveries } from '../deliveries/queue-deliveries.ts';
import { releaseHeldDeliveries } from '../deliveries/release-held-deliveries.ts';
import { linkParamsOfUrl } from '../links/deeplink-params.ts';
import { decideBatch } from './decide-batch.ts';
import { type Gathered, gatherCandidates } from './gather-candidates.ts';
import { NetworkUnavailableError } from './resolvers.ts';
import { type AttributionSettings, attributionSettings } from './settings.ts';
import type { CandidateNote, Decision } from './types.ts';

export class RetryLaterError extends Error {}

/**
 * What an `attributions` row records: an install-time decision, or a re-engagement (a campaign link
 * opened in the app later; its install_ts and day are the re-engagement's own time, its candidate
 * is that link, and its windows are the re-engagement's own).
 */
export type RecordedDecision = Omit<Decision, 'kind' | 'method' | 'candidates' | 'windows'> & {
  kind: Decision['kind'] | 'reengagement';
  method: Decision['method'] | 'deeplink';
  candidates: (Omit<CandidateNote, 'method'> & { method: CandidateNote['method'] | 'deeplink' })[];
  windows: Decision['windows'] | { reattribution_window_ms: number; reengagement_inactivity_ms: number };
};

export function decisionRow(
  project: Project,
  install: InstallRecord,
  d: RecordedDecision,
  decisionId: string,
  now: number,
  installTs = install.createdAt.getTime(),
) {
  return {
    decision_id: decisionId,
    project_id: project.id,
    install_instance_id: install.installInstanceId,
    kind: d.kind,
    ts: formatChTime(now),
    install_ts: formatChTime(installTs),
    project_tz: project.timezone,
    day: localDay(installTs, project.timezone),
    platform: install.platform,
    attribution_type: d.attributionType,
    method: d.method,
    touch_type: d.touchType,
    campaign_id: d.campaignId,
    display_id: d.displayId,
    network: d.network,
    ad_set_id: d.adSetId,
    ad_set_name: d.adSetName,
    creative_id: d.creativeId,
    creative_name: d.creativeName,
    keyword_id: d.keywordId,
    keyword_name: d.keywordName,
    click_id: d.click?.clickId ?? '',
    click_ts: formatChTime(d.click?.ts ?? 0),
    ctit_ms: d.ctitMs,
    confidence: d.confidence,
    suspicious: d.suspicious ? 1 : 0,
    suspicious_reason: d.suspiciousReason,
    candidates: JSON.stringify(d.candidates),
    windows: JSON.stringify(d.windows),
  };
}

type Ready = { install: InstallRecord; project: Project; cfg: AttributionSettings };
export type AttributionOutcome = PromiseSettledResult<Decision | undefined>;

/** The install still waiting for its decision, with its project and settings; undefined when there is nothing to do. */
async function ready(
  deps: Pick<Deps, 'sql'>,
  installs: Map<string, InstallRecord>,
  job: AttributeInstallPayload,
): Promise<Ready | undefined> {
  const install = installs.get(`${job.projectId}\n${job.installInstanceId}`);
  if (!install || install.attributionStatus === 'decided') {
    return undefined;
  }
  const project = await findProjectByIdCached(deps.sql, job.projectId);
  if (!project) {
    return undefined;
  }
  return { install, project, cfg: attributionSettings(await findAttributionSettingsCached(deps.sql, project.id)) };
}

/**
 * Decides and records the attribution of a batch of installs (a no-op for those already decided),
 * answering one outcome per job, in order: the installs are read in one statement and their
 * candidate clicks looked up together (gather-candidates.ts) and decided together (decide-batch.ts:
 * one click, one fingerprint match); each decision is saved in its own body, so the saves share a
 * commit group. One install's failure fails only its job.
 */
export async function attributeInstalls(
  deps: Pick<Deps, 'sql' | 'ch' | 'config' | 'cache' | 'now' | 'log'>,
  jobs: AttributeInstallPayload[],
): Promise<AttributionOutcome[]> {
  const outcomes = await attributeOnce(deps, jobs);
  // An install whose signals changed while it was decided is decided again, on what it has now. Each
  // signal can change only a few times (filled once, or a link naming no campaign replaced once), so
  // this ends; the cap only guards against a loop.
  for (let round = 0; round < MAX_STALE_ROUNDS; round++) {
    const stale = outcomes.flatMap((o, i) => (o.status === 'fulfilled' && o.value === STALE ? [i] : []));
    if (stale.length === 0) {
      break;
    }
    const again = await attributeOnce(
      deps,
      stale.map((i) => jobs[i] as AttributeInstallPayload),
    );
    stale.forEach((i, k) => {
      outcomes[i] = again[k] as (typeof outcomes)[number];
    });
  }
  return outcomes.map((o) =>
    o.status === 'fulfilled' && o.value === STALE
      ? { status: 'rejected', reason: new RetryLaterError('signals kept changing') }
      : (o as AttributionOutcome),
  );
}

const MAX_STALE_ROUNDS = 5;

async function attributeOnce(
  deps: Pick<Deps, 'sql' | 'ch' | 'config' | 'cache' | 'now' | 'log'>,
  jobs: AttributeInstallPayload[],
): Promise<PromiseSettledResult<Decision | undefined | typeof STALE>[]> {
  const installs = new Map(
    (await findInstalls(deps.sql, jobs)).map((i) => [`${i.projectId}\n${i.installInstanceId}`, i] as const),
  );
  const todo = await Promise.all(jobs.map((job) => ready(deps, installs, job)));
  const live = todo.filter((t) => t !== undefined);
  const gathered = await gatherCandidates(deps, live);
  const decided = decideBatch(
    live.flatMap((t, i) => {
      const g = gathered[i] as PromiseSettledResult<Gathered>;
      return g.status === 'fulfilled'
        ? [{ key: t.install.installInstanceId, projectId: t.project.id, ...g.value, cfg: t.cfg }]
        : [];
    }),
  );
  let next = 0; // gathered[] follows todo[] with the undefined left out
  let nextDecided = 0; // decided[] follows gathered[] with the rejected left out
  return Promise.allSettled(
    todo.map((t) => {
      if (!t) {
        return undefined;
      }
      const g = gathered[next++] as PromiseSettledResult<Gathered>;
      if (g.status === 'fulfilled') {
        return save(deps, t, decided[nextDecided++] as Decision);
      }
      // Rejected, not thrown: a throw here would end the map and fail the other installs too.
      return Promise.reject(
        g.reason instanceof NetworkUnavailableError ? new RetryLaterError(g.reason.message) : g.reason,
      );
    }),
  );
}

/** The decision of a settled outcome, or its failure thrown. */
function unwrap(outcome: AttributionOutcome | undefined): Decision | undefined {
  if (outcome?.status === 'rejected') {
    throw outcome.reason;
  }
  return outcome?.value;
}

/** Decides and records the attribution of one install; a no-op once decided. */
export async function attributeInstall(
  deps: Pick<Deps, 'sql' | 'ch' | 'config' | 'cache' | 'now' | 'log'>,
  job: AttributeInstallPayload,
): Promise<Decision | undefined> {
  const [outcome] = await attributeInstalls(deps, [job]);
  return unwrap(outcome);
}

/**
 * The attribution jobs of a process: jobs that run at the same time are decided together, in
 * batches of up to 32, two batches at once (see lib/micro-batch.ts).
 */
export function attributionBatcher(
  deps: Pick<Deps, 'sql' | 'ch' | 'config' | 'cache' | 'now' | 'log'>,
): (job: AttributeInstallPayload) => Promise<Decision | undefined> {
  const batch = microBatcher<AttributeInstallPayload, AttributionOutcome>({
    lanes: 2,
    maxItems: 32,
    run: (jobs) => attributeInstalls(deps, jobs),
  });
  return async (job) => unwrap(await batch(job));
}

/**
 * The winning link's own parameters (referral codes), saved with the ad set and creative: its
 * click's, or those of the campaign link the app gave when that link decided.
 */
function linkParamsOf(decision: Decision, install: InstallRecord): string {
  if (decision.click) {
    return decision.click.linkParams ?? '';
  }
  return decision.method === 'link' && install.initLink ? linkParamsOfUrl(install.initLink) : '';
}

/** A decision not saved because a signal of the install changed while it was made. */
const STALE = Symbol('stale');

type Saved = Awaited<ReturnType<typeof saveInstallDecision>>;
type Body = (tx: Parameters<typeof asSql>[0]) => Promise<Saved>;

/** Records one install's decision (decide-batch.ts made it); STALE when it must be made again. */
async function save(
  deps: Pick<Deps, 'sql' | 'now'>,
  { install, project }: Ready,
  decision: Decision,
): Promise<Decision | undefined | typeof STALE> {
  const decisionId = `ad_${newTimeId()}`;
  const row = decisionRow(project, install, decision, decisionId, deps.now());
  // Two runs racing on one install both decide, but only the one whose save wins records a fact
  // and returns the decision; the other is a no-op, as after a decision. A save made from signals
  // that changed meanwhile is refused (stale), and the install is decided again. The save is one
  // atomic statement, so the body may share a pipeline with other bodies (beginPipelined). A click
  // taken by fingerprint is claimed first, which another run's save of that click may have done
  // meanwhile: then the install is decided again too, and that click is no longer its candidate.
  // Such a body reads, then writes from what it read: sql.begin, so a group commit runs it after its
  // other bodies, not interleaved with them.
  const fingerprinted = decision.method === 'fingerprint' && decision.click !== null;
  const begin = fingerprinted
    ? (body: Body) => deps.sql.begin(body) as Promise<Saved>
    : (body: Body) => beginPipelined(deps.sql, body);
  const saved = await begin(async (txh) => {
    const tx = asSql(txh);
    if (
      fingerprinted &&
      !(await claimClickForFingerprint(tx, project.id, decision.click?.clickId ?? '', install.installInstanceId))
    ) {
      return 'stale';
    }
    const outcome = await saveInstallDecision(tx, install, {
      decisionId,
      method: decision.method,
      campaignId: decision.campaignId || null,
      isReinstall: decision.kind === 'reinstall',
      suspicious: decision.suspicious,
      clickId: decision.click?.clickId ?? null,
      // Our click's time, or the click time a network's claim carried (Apple clickDate, Meta actual_timestamp).
      storeClickAt: decision.clickTs !== undefined ? new Date(decision.clickTs) : null,
      network: decision.network || null,
      adSetId: decision.adSetId,
      adSetName: decision.adSetName,
      creativeId: decision.creativeId,
      creativeName: decision.creativeName,
      keywordId: decision.keywordId,
      keywordName: decision.keywordName,
      linkParams: linkParamsOf(decision, install),
      networkDetails:
        decision.networkDetails && Object.keys(decision.networkDetails).length > 0 ? decision.networkDetails : null,
    });
    if (outcome === 'saved') {
      await insertOutboxRows(tx, [{ table: 'attributions', factId: decisionId, projectId: project.id, row }]);
      // Facts of this install that waited for the decision go out on the writer's next tick.
      await wakeRestingRows(tx, project.id, install.installInstanceId);
      // The install webhook fires once the install's attribution is known.
      await queueDeliveries(tx, {
        kind: 'install',
        projectId: project.id,
        installInstanceId: install.installInstanceId,
        userId: null,
        occurredAtMs: deps.now(),
      });
      // Sign-up webhooks that waited for this decision go out after it, with its campaign.
      await releaseHeldDeliveries(tx, project.id, install.installInstanceId);
    }
    return outcome;
  });
  if (saved === 'stale') {
    return STALE;
  }
  return saved === 'saved' ? decision : undefined;
}

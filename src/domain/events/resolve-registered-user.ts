// Rules 1 and 3: events and payments count only for users registered through trigger, i.e. users
// with an app_users row (customer-user-id ties an install to a user id without registering it).
//  - The user: the body's user_id (iOS 4.x sends it), else the user tied to the request's install
//    (Android 3.8 and iOS <= 3.10 send none; trigger ties the install to the user).
//  - The install the fact belongs to (its attribution is the fact's): the request's install when it
//    is tied to that user, else the install the user registered through (a user_id sent from an
//    install never tied to it, or a server-side call naming no install), so revenue goes to the
//    campaign that brought the user.
//  - Without a registered user nothing is recorded, but the answer still names the sending install
//    when it is marked uninstalled or counting failed pushes: a request from the device proves the
//    app is back, or in use that day (README Uninstall tracking), whoever uses it. A server-side
//    call names no install, so never one.
// Lookups that arrive while earlier ones run share one statement (lib/micro-batch.ts): under the
// ingest mix this read was a Postgres round trip for two requests in three.
import type { Deps } from '../../deps.ts';
import { batcherPerOwner } from '../../lib/micro-batch.ts';
import type { Sql } from '../../store/postgres/pool.ts';
import { findRegistrations, type RegistrationAsk } from '../../store/postgres/registrations.ts';

export type RegisteredUser = {
  userId: string;
  installInstanceId: string;
  platform: string;
  /** The sending install as read before the transaction, when the request named a known one. */
  sender?: { platform: string; uninstalled: boolean; pushFailing: boolean };
  /** The request named no install: a server-side call (POST /api/v1/capture-event, capture-payment). */
  serverSide?: boolean;
};

/**
 * Rule 1's answer: the registered user, or none (and the sending install, when marked uninstalled
 * or counting failed pushes: its uninstall state is to be cleared).
 */
export type Resolution = { user: RegisteredUser } | { user: undefined; uninstalledSender: string | undefined };

/**
 * Whether the sender's SKAN counters or uninstall state may need a write: skipped only when the
 * read says it cannot (an Android install; an install neither marked uninstalled nor counting
 * failed pushes, the common case, which so costs no statement). A failed day or an uninstall
 * marked between that read and this request's commit is cleared by the install's next request.
 * A server-side call never undoes an uninstall: it does not come from the install (README: "a later
 * init, event or payment from that install"), and a backend's renewal after the app was deleted
 * cleared it, recorded a reinstall that never happened, and the next failed pushes counted the
 * same uninstall again.
 */
export function senderNeeds(user: RegisteredUser): { skan: boolean; undoUninstall: boolean } {
  return user.sender
    ? { skan: user.sender.platform === 'IOS', undoUninstall: user.sender.uninstalled || user.sender.pushFailing }
    : { skan: true, undoUninstall: user.serverSide !== true };
}

/** Batches of up to 200 lookups, two in flight, per pool (one pool per process). */
const lookupBatcher = batcherPerOwner((sql: Sql) => ({
  lanes: 2,
  maxItems: 200,
  run: (asks: RegistrationAsk[]) => findRegistrations(sql, asks),
}));

export async function resolveRegisteredUser(
  deps: Pick<Deps, 'sql'>,
  projectId: string,
  asked: { installInstanceId: string | null; userId: string | null; platform: string },
): Promise<Resolution> {
  const r = await lookupBatcher(deps.sql)({
    projectId,
    installInstanceId: asked.installInstanceId,
    userId: asked.userId,
  });
  if (!r.user) {
    const iid = asked.installInstanceId;
    const toClear = r.install !== undefined && (r.install.uninstalled || r.install.pushFailing);
    return { user: undefined, uninstalledSender: iid !== null && toClear ? iid : undefined };
  }
  const sender =
    asked.installInstanceId !== null && r.install
      ? { platform: r.install.platform, uninstalled: r.install.uninstalled, pushFailing: r.install.pushFailing }
      : undefined;
  if (asked.installInstanceId !== null && r.install && r.install.userId === r.user.userId) {
    return {
      user: {
        userId: r.user.userId,
        installInstanceId: asked.installInstanceId,
        platform: r.install.platform || asked.platform,
        sender,
      },
    };
  }
  return {
    user: {
      userId: r.user.userId,
      installInstanceId: r.user.installInstanceId,
      platform: r.user.platform || asked.platform,
      sender,
      serverSide: asked.installInstanceId === null,
    },
  };
}

/**
 * The install's platform, undefined when there is none, through the same batched lookup: trigger's
 * check before its transaction shares a statement with the capture requests' lookups.
 */
export async function findInstallPlatformBatched(
  deps: Pick<Deps, 'sql'>,
  projectId: string,
  installInstanceId: string,
): Promise<string | undefined> {
  const r = await lookupBatcher(deps.sql)({ projectId, installInstanceId, userId: null });
  return r.install?.platform;
}

// Job payloads. Only ids travel through Redis: no keys, tokens, emails or phones.
export type AttributeInstallPayload = { projectId: string; installInstanceId: string };
/** One delivery batch: the rows (and any personal data in them) stay in Postgres. */
export type DeliverPayload = { projectId: string; destination: string };

/** The daily uninstall-tracking pass: the UTC day it is for. */
export type UninstallPassPayload = { day: string };

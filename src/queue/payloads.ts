// Job payloads. Only ids travel through Redis: no keys, tokens, emails or phones.
export type AttributeInstallPayload = { projectId: string; installInstanceId: string };

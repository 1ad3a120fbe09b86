// An iPad in its default desktop mode opens a link with a Mac Safari agent, recorded as a DESKTOP
// click whose model is MAC_OR_IPAD_MODEL (links/classify-user-agent.ts). Its OS, version and model
// say nothing of the iPad, so the fingerprint compares only what is left: an iOS install whose
// model is an iPad ("iPad13,1") may take such a click (same IP and window, as any fingerprint), with
// the lower confidence of a partial match. An iPhone never does. A real Mac and an iPad behind one
// IP look exactly like this: the risk any shared IP carries.
import { MAC_OR_IPAD_MODEL } from '../links/classify-user-agent.ts';
import type { DeviceTraits } from './device-match.ts';

const IOS_FAMILY = new Set(['ios', 'ipados', 'iphone os']);

/** Whether the click may be this install's iPad, opened in desktop mode. */
export function matchesDesktopModeIpad(click: Pick<DeviceTraits, 'deviceModel'>, device: DeviceTraits): boolean {
  return (
    click.deviceModel === MAC_OR_IPAD_MODEL &&
    IOS_FAMILY.has(device.os.trim().toLowerCase()) &&
    /^ipad/i.test(device.deviceModel.trim())
  );
}

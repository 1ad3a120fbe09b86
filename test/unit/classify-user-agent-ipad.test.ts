// classifyUserAgent over the agents an iPad in its default desktop mode sends (README "Link
// handler"): a Mac Safari/WebKit agent stays DESKTOP but is marked (model `Macintosh or iPad`) for
// the iPad page and attribution; so is a Mac agent carrying an iOS browser's token (CriOS/, FxiOS/,
// EdgiOS/) whatever Mac version it names, which no Mac sends. A Mac's Chrome, Edge, Opera and
// Firefox, and Safari before macOS 10.15, are no iPad.
import { describe, expect, it } from 'vitest';
import { classifyUserAgent } from '../../src/domain/links/classify-user-agent.ts';

describe('classifyUserAgent: agents an iPad in desktop mode sends', () => {
  const MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X';
  it.each([
    [
      'iPadOS 17 Safari (Mac Safari alike)',
      `${MAC} 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15`,
    ],
    ['iPadOS 13 Safari', `${MAC} 10_15) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1 Safari/605.1.15`],
    ['a web view of an iPad app (no Safari token)', `${MAC} 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)`],
    [
      'Chrome for iOS on an iPad',
      `${MAC} 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0.6367.111 Version/17.0 Safari/605.1.15`,
    ],
    [
      'Firefox for iOS on an iPad',
      `${MAC} 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/125.0 Safari/605.1.15`,
    ],
    // Chrome for iOS' "Request Desktop Site" agent (Chromium blog, M85+; seen from Chrome 111 and
    // 113 on iPads): an old Mac version, and CriOS/ with its major version only.
    [
      'Chrome for iOS on an iPad (Request Desktop Site, Mac OS X 10_13_5)',
      `${MAC} 10_13_5) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/111 Version/11.1.1 Safari/605.1.15`,
    ],
    [
      'Firefox for iOS naming Mac OS X 10_14',
      `${MAC} 10_14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/125.0 Safari/605.1.15`,
    ],
    [
      'Edge for iOS on an iPad',
      `${MAC} 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 EdgiOS/124.0.2478.89 Safari/605.1.15`,
    ],
  ])('when the agent is %s, then it may be an iPad: DESKTOP, model `Macintosh or iPad`', (_l, ua) => {
    expect(classifyUserAgent(ua)).toMatchObject({
      platform: 'DESKTOP',
      os: 'Mac OS',
      deviceModel: 'Macintosh or iPad',
      mayBeIpad: true,
    });
  });

  it.each([
    ['Chrome on a Mac', `${MAC} 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36`],
    [
      'Edge on a Mac',
      `${MAC} 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.67`,
    ],
    [
      'Opera on a Mac',
      `${MAC} 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 OPR/109.0.0.0`,
    ],
    ['Firefox on a Mac', `${MAC} 10.15; rv:125.0) Gecko/20100101 Firefox/125.0`],
    [
      'Safari on macOS 10.14',
      `${MAC} 10_14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/14.1.2 Safari/605.1.15`,
    ],
    [
      'Chrome on Windows',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    ],
    [
      'Safari on an iPad in mobile mode',
      'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
    ],
  ])('when the agent is %s, then it is no iPad in desktop mode', (_l, ua) => {
    const got = classifyUserAgent(ua);
    expect(got.mayBeIpad).toBe(false);
    expect(got.deviceModel).not.toBe('Macintosh or iPad');
  });
});

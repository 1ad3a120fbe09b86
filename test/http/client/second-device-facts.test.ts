// README "Events, payments, push tokens, integrations", Registered users only: "The fact belongs to
// the sending install when trigger or customer-user-id tied it to that user (the app said this
// device is that user, as a log-in on a second device does), else to the install the user
// registered through". README said "when trigger tied it" while customer-user-id has always tied
// the install the same way; a README hunt found the difference and README now says what is done.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  attribute,
  attributedInstall,
  flushFacts,
  init,
  post,
  randomIp,
  useClientHarness,
} from '../../support/client.ts';
import { eventFacts, paymentFacts, signUp } from '../../support/commerce.ts';
import { newProject } from '../../support/harness.ts';

const h = useClientHarness();

async function scenario() {
  const p = await newProject(h().deps);
  const { campaign, iid: registering } = await attributedInstall(h(), p);
  await signUp(h(), p, registering, 'cu-user');
  // A second device of the same user: organic, tied to the user only through customer-user-id.
  const second = randomUUID();
  await init(h(), p.token, { install_instance_id: second }, randomIp());
  await attribute(h(), p, second);
  const tie = await post(h(), 'customer-user-id', {
    token: p.token,
    platform: 'ANDROID',
    install_instance_id: second,
    user_id: 'cu-user',
  });
  expect(tie.statusCode).toBe(200);
  return { p, campaign, registering, second };
}

describe('a fact from a second device of a registered user', () => {
  it('when an install tied only by customer-user-id captures a payment for the user, then the payment belongs to that install (organic here)', async () => {
    const { p, second } = await scenario();

    const res = await post(h(), 'capture-payment', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: second,
      user_id: 'cu-user',
      amount: 9.99,
      payment_id: `pay-${randomUUID()}`,
    });
    expect(res.statusCode).toBe(201);
    await flushFacts(h());

    expect((await paymentFacts(h().deps, p)).map((f) => [f.install_instance_id, f.campaign_id])).toEqual([[second, 0]]);
  });

  it('when an install tied only by customer-user-id captures an event for the user, then the event belongs to that install (organic here)', async () => {
    const { p, second } = await scenario();

    const res = await post(h(), 'capture-event', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: second,
      user_id: 'cu-user',
      event_name: 'purchase_intent',
    });
    expect(res.statusCode).toBe(200);
    await flushFacts(h());

    expect((await eventFacts(h().deps, p)).map((f) => [f.install_instance_id, f.campaign_id])).toEqual([[second, 0]]);
  });
});

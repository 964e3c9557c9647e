/**
 * Passkey-verified approvals benchmark, in Debian Chromium with the real extension, bridge and SDK:
 * the time from the Approve click until the decision reaches the agent (`requestApproval` resolves
 * `approved`), with the passkey step against the same request without it.
 *
 * The passkey step adds a challenge from the background, a WebAuthn get() in the window, and the
 * assertion checked by the background and again by the SDK. A CDP virtual authenticator that
 * verifies the user at once stands in for the person, so what is left of the difference is
 * Countersign's own cost; a real person's fingerprint or PIN comes on top and is theirs.
 *
 * Both kinds run in the same browser, against the same agent and the same approval window, taking
 * turns, so that a slow moment of this machine lands on both. Nothing is asserted.
 */
import type { Page } from '@playwright/test';
import { Stack, jacketOperation, STORMLINE, EXCHANGE_REQUEST } from '../test/e2e/support/stack';
import { authenticatorOn } from '../test/e2e/support/webauthn';
import type { Companion } from '../src/agent/index.ts';
import { formatMs as fmt, quantile } from './quantile';
import type { BenchResult } from './run';

const WARM_UPS = 3;
const SAMPLES = 20;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let opCounter = 0;

/** `promise`, or an error naming what never happened: a missed click must not hang the whole run. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One sample: ask, wait until the window shows this operation and Approve is armed, then click
 * and time until the SDK hands back the verified decision. The item is then settled (sent,
 * performed) so every sample starts from an empty queue, as the first one did.
 */
async function sample(agent: Companion, windowFor: () => Promise<Page>, passkey: boolean): Promise<number> {
  const operation = jacketOperation('r1', 10 * 60_000, { operation_id: `bench_pk_${++opCounter}` });
  let decidedAt = Number.NaN;
  // Stamped where the promise settles: awaiting it after the click would add the click's own CDP round trip.
  const answer = agent
    .requestApproval({ company: STORMLINE, operation, request: EXCHANGE_REQUEST, session: { kind: 'this_session' }, ...(passkey ? { userVerification: 'required' as const } : {}) })
    .then((result) => {
      decidedAt = performance.now();
      return result;
    });
  // If a step below throws, the request is left pending; its later rejection must not end the process before cleanup.
  answer.catch(() => undefined);
  const page = await windowFor();
  await page.locator(`#content[data-painted-key*=" ${operation.operation_id} "]`).waitFor({ timeout: 10_000 });
  const approve = page.locator('#approve:enabled');
  await approve.waitFor({ timeout: 10_000 });
  // The pointer is placed and the button hit-tested before t0: a locator click would run its
  // actionability checks (the button stable over animation frames, then hit-tested) inside the timed
  // span, a wait that is Playwright's, not Countersign's. A mouse click is as trusted as the person's.
  const box = await approve.boundingBox();
  if (box === null) throw new Error('Approve has no box on screen');
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  const hit = await page.evaluate((at) => Boolean(document.elementFromPoint(at.x, at.y)?.closest('#approve')), { x, y });
  if (!hit) throw new Error('something covers Approve at its centre');
  await page.mouse.move(x, y);
  const t0 = performance.now();
  await page.mouse.click(x, y);
  const result = await within(answer, 30_000, `no decision for ${operation.operation_id} within 30 s of the Approve click`);
  if (result.status !== 'approved') throw new Error(`${operation.operation_id}: expected approved, got ${result.status}`);
  // A decision that skipped the passkey would time the wrong path.
  if (passkey && result.userVerified !== true) throw new Error(`${operation.operation_id}: approved without a verified passkey`);
  const elapsed = decidedAt - t0;
  await agent.markSent(result.approval);
  await agent.reportOutcome({ ...result.approval, outcome: 'performed' });
  return elapsed;
}

export async function run(): Promise<BenchResult[]> {
  const stack = await Stack.start();
  let agent: Companion | undefined;
  try {
    const paired = await stack.pairedAgent('Bench agent');
    agent = paired;

    // Register the passkey as the person does, in the options page, with its own authenticator.
    const options = await stack.extensionPage('/options.html');
    const optionsAuthenticator = await authenticatorOn(options);
    await options.locator('#passkey-register').click();
    await options.locator('#passkey-status').filter({ hasText: 'A passkey protects your approvals' }).waitFor({ timeout: 15_000 });
    // The SDK checks assertions against the passkey the extension announced: wait until it has it.
    const deadline = Date.now() + 10_000;
    while (!paired.passkey && Date.now() < deadline) await sleep(50);
    if (!paired.passkey) throw new Error('the agent was never told about the registered passkey');
    const { credentials } = await optionsAuthenticator.cdp.send('WebAuthn.getCredentials', { authenticatorId: optionsAuthenticator.id });
    if (credentials.length === 0) throw new Error('the options page registered no credential');
    // The credentials are held here from now on; the options page would only add a renderer to this 2-core machine.
    await options.close();

    // The approval window is reused between samples: it closes itself only when its queue is empty
    // and it has lost focus, and Playwright's pages keep theirs. Should it close and open again, the
    // new page gets its own authenticator with the passkey copied in, before any get(): the Approve
    // click is what starts one. Both kinds use the same window, so an authenticator is attached
    // whichever kind comes first.
    let equipped: Page | undefined;
    const windowFor = async (): Promise<Page> => {
      const page = await stack.approvalWindow();
      if (page !== equipped) {
        const authenticator = await authenticatorOn(page);
        for (const credential of credentials) await authenticator.cdp.send('WebAuthn.addCredential', { authenticatorId: authenticator.id, credential });
        equipped = page;
      }
      return page;
    };

    const withPasskey: number[] = [];
    const without: number[] = [];
    for (let i = 0; i < WARM_UPS + SAMPLES; i++) {
      const a = await sample(paired, windowFor, true);
      const b = await sample(paired, windowFor, false);
      if (i < WARM_UPS) continue;
      withPasskey.push(a);
      without.push(b);
    }

    const p50With = quantile(withPasskey, 0.5);
    const p50Without = quantile(without, 0.5);
    return [
      {
        name: 'Approve click → decision, with passkey vs without',
        baseline: 'without passkey',
        ratio: p50With / p50Without,
        goal: "≤ 1.5x (the step's cost is the person's, not ours)",
        detail:
          `p50 ${fmt(p50With)} vs ${fmt(p50Without)}; p95 ${fmt(quantile(withPasskey, 0.95))} vs ${fmt(quantile(without, 0.95))} ` +
          `(n=${withPasskey.length} with, n=${without.length} without, taking turns, after ${WARM_UPS} warm-ups each; virtual authenticator, user verified at once)`,
      },
    ];
  } finally {
    await agent?.close().catch(() => undefined);
    await stack.close();
  }
}

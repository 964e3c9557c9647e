import { test, expect, type Page } from '@playwright/test';
import { Stack, jacketOperation, pageMessage, STORMLINE, EXCHANGE_REQUEST } from './support/stack';
import { authenticatorOn, carryCredentials, type Authenticator } from './support/webauthn';
import type { Companion } from '../../src/agent/index.ts';
import type { PasskeyCredential } from '../../src/protocol/passkey';

/**
 * Passkey-verified approvals end to end in Debian Chromium, with CDP virtual authenticators
 * (internal transport, user verification on): registering in the options page, the approval
 * window asking the passkey after a trusted Approve click, the agent SDK verifying the assertion
 * against the passkey the extension announced, and every way it must fail closed.
 */
test.describe.configure({ mode: 'serial' });

let stack: Stack;
let agent: Companion;
let counter = 0;
let options: Page;
let optionsAuthenticator: Authenticator;
const announced: Array<PasskeyCredential | null> = [];

function ask(userVerification?: 'required') {
  const operation = jacketOperation('rev1', 10 * 60_000, { operation_id: `exc_pk${++counter}` });
  const pending = agent.requestApproval({ company: STORMLINE, operation, request: EXCHANGE_REQUEST, session: { kind: 'this_session' }, ...(userVerification ? { userVerification } : {}) });
  return { operation, pending };
}

async function showing(page: Page, operationId: string): Promise<void> {
  await page.locator(`#content[data-painted-key*=" ${operationId} "]`).waitFor();
  await expect(page.locator('#approve')).toBeEnabled({ timeout: 5000 });
}

async function stateOf(page: Page, operationId: string): Promise<string | undefined> {
  const snapshot = await pageMessage<{ active: Array<{ state: string; operation: { operation_id: string } }> }>(page, { type: 'countersign/snapshot' });
  return snapshot.active.find((v) => v.operation.operation_id === operationId)?.state;
}

let windowAuthenticator: { page: Page; authenticator: Authenticator } | undefined;

/** The approval window, with an authenticator holding the registered passkey attached before any get(). */
async function windowWithPasskey(): Promise<{ page: Page; authenticator: Authenticator }> {
  const page = await stack.approvalWindow();
  if (windowAuthenticator?.page !== page) {
    const authenticator = await authenticatorOn(page);
    await carryCredentials(optionsAuthenticator, authenticator);
    windowAuthenticator = { page, authenticator };
  }
  return windowAuthenticator;
}

test.beforeAll(async () => {
  test.setTimeout(90_000);
  stack = await Stack.start();
  agent = await stack.pairedAgent('Passkey agent');
  agent.on('passkeyChanged', (passkey) => announced.push(passkey));
});
test.afterAll(async () => {
  await agent?.close().catch(() => undefined);
  await stack?.close();
});

test('register: the options page creates a passkey (user verification required) and every paired agent is told', async () => {
  options = await stack.extensionPage('/options.html');
  optionsAuthenticator = await authenticatorOn(options);
  await expect(options.locator('#passkey-status')).toHaveText('No passkey is registered.');
  await options.locator('#passkey-register').click();
  await expect(options.locator('#passkey-status')).toContainText('A passkey protects your approvals');
  await expect.poll(() => announced.length).toBe(1);
  const passkey = announced[0];
  expect(passkey).toMatchObject({ alg: -8, rp_id: stack.worker.url().split('/').slice(0, 3).join('/') });
  const { credentials } = await optionsAuthenticator.cdp.send('WebAuthn.getCredentials', { authenticatorId: optionsAuthenticator.id });
  expect(credentials.map((c) => c.credentialId.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'))).toEqual([passkey?.credential_id]);
  await options.screenshot({ path: 'test-results/passkey-options-registered.png' });
});

test('an agent paired after the passkey was registered learns it at once, and one that reconnects keeps it', async () => {
  const late = await stack.pairedAgent('Late agent');
  try {
    await expect.poll(() => late.passkey?.credential_id).toBe(announced[0]?.credential_id);
  } finally {
    await late.close();
  }
  const again = await stack.agent('Late agent');
  try {
    expect(again.passkey?.credential_id).toBe(announced[0]?.credential_id);
  } finally {
    await again.close();
  }
});

test('approve with the passkey: the SDK verifies the assertion over exactly this decision', async () => {
  const { operation, pending } = ask('required');
  const { page } = await windowWithPasskey();
  await showing(page, operation.operation_id);
  await expect(page.locator('#approve')).toHaveText('Approve with passkey');
  // The passkey takes no line of the footer: at the opening size and at 125 % zoom the footer
  // stays within 90 px and the summary starts above the fold.
  for (const size of [{ width: 520, height: 490 }, { width: 416, height: 392 }]) {
    await page.setViewportSize(size);
    const main = (await page.locator('#content').boundingBox())!;
    expect((await page.locator('#actions').boundingBox())!.height).toBeLessThanOrEqual(90);
    expect((await page.getByTestId('summary').boundingBox())!.y + 24).toBeLessThanOrEqual(main.y + main.height);
    expect(await page.locator('#approve').evaluate((b) => b.scrollWidth <= b.clientWidth + 1)).toBe(true);
  }
  await page.setViewportSize({ width: 520, height: 490 });
  await page.screenshot({ path: 'test-results/passkey-window-required.png' });
  await page.locator('#approve').click();
  const result = await pending;
  expect(result.status).toBe('approved');
  if (result.status !== 'approved') return;
  expect(result.userVerified).toBe(true);
  expect(result.passkeyAssertion?.credential_id).toBe(announced[0]?.credential_id);
});

test('verification refused (the authenticator does not verify the person): no decision, the item stays pending, the window says why', async () => {
  const { operation, pending } = ask('required');
  const { page, authenticator } = await windowWithPasskey();
  await showing(page, operation.operation_id);
  await authenticator.cdp.send('WebAuthn.setUserVerified', { authenticatorId: authenticator.id, isUserVerified: false });
  await page.locator('#approve').click();
  // A refusal is said in words, not as the browser's error name.
  await expect(page.locator('#status')).toContainText('The passkey was cancelled or took too long. Nothing was approved');
  await expect(page.locator('#status')).not.toContainText('NotAllowedError');
  expect(await stateOf(page, operation.operation_id)).toBe('pending');
  await page.screenshot({ path: 'test-results/passkey-window-refused.png' });
  // The person tries again, and this time their passkey confirms.
  await authenticator.cdp.send('WebAuthn.setUserVerified', { authenticatorId: authenticator.id, isUserVerified: true });
  await expect(page.locator('#approve')).toBeEnabled();
  await page.locator('#approve').click();
  expect((await pending).status).toBe('approved');
});

test('an approval that needs the passkey cannot be given without it, nor with an assertion for something else', async () => {
  const { operation, pending } = ask('required');
  const { page } = await windowWithPasskey();
  await showing(page, operation.operation_id);
  const key = await page.locator('#content').getAttribute('data-painted-key');
  // Without an assertion: refused.
  const bare = await pageMessage<{ error?: { code: string; message: string } }>(page, { type: 'countersign/decide', key, decision: 'approve', trusted: true, shownFor: 5000 });
  expect(bare.error?.message).toMatch(/needs the person to confirm with their passkey/);
  // An assertion made for another challenge (a replay of another decision's): refused.
  const other = await page.evaluate(async (credentialId) => {
    const b64u = (b: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    const id = Uint8Array.from(atob(credentialId.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
    const c = (await navigator.credentials.get({ publicKey: { challenge: new Uint8Array(32).fill(7), allowCredentials: [{ type: 'public-key', id }], userVerification: 'required' } })) as PublicKeyCredential;
    const r = c.response as AuthenticatorAssertionResponse;
    return { credential_id: b64u(c.rawId), authenticator_data: b64u(r.authenticatorData), client_data_json: b64u(r.clientDataJSON), signature: b64u(r.signature) };
  }, announced[0]?.credential_id ?? '');
  const replayed = await pageMessage<{ error?: { code: string; message: string } }>(page, { type: 'countersign/decide', key, decision: 'approve', trusted: true, shownFor: 5000, userVerification: { now: Date.now(), assertion: other } });
  expect(replayed.error).toMatchObject({ code: 'ERR_PASSKEY_INVALID' });
  expect(replayed.error?.message).toMatch(/challenge/);
  // The same assertion with its UV flag cleared in the authenticator data: refused too.
  const data = Buffer.from(other.authenticator_data, 'base64url');
  data[32] = (data[32] ?? 0) & ~0x04;
  const tampered = await pageMessage<{ error?: { code: string } }>(page, { type: 'countersign/decide', key, decision: 'approve', trusted: true, shownFor: 5000, userVerification: { now: Date.now(), assertion: { ...other, authenticator_data: data.toString('base64url') } } });
  expect(tampered.error).toMatchObject({ code: 'ERR_PASSKEY_INVALID' });
  expect(await stateOf(page, operation.operation_id)).toBe('pending');
  await page.locator('#decline').click();
  expect((await pending).status).toBe('declined');
});

test('finding: "Require my passkey for every approval": unchecking asks the passkey; refused, it stays on and the next approval still carries an assertion; confirmed, it goes off and the agent is told', async () => {
  const requirement: boolean[] = [];
  agent.on('passkeyRequirementChanged', (required) => requirement.push(required));
  const box = options.locator('tr', { hasText: 'Passkey agent' }).getByRole('checkbox', { name: 'Require my passkey for every approval' });
  // On: a plain click, and the agent is told, signed.
  await box.click();
  await expect.poll(() => agent.passkeyRequired).toBe(true);
  await expect(box).toBeChecked();
  // Off, but the passkey does not confirm (the person cancels): nothing changes.
  await optionsAuthenticator.cdp.send('WebAuthn.setUserVerified', { authenticatorId: optionsAuthenticator.id, isUserVerified: false });
  await box.click();
  await expect(options.locator('#agents-status')).toContainText('Still required for “Passkey agent”');
  await expect(box).toBeChecked();
  await options.screenshot({ path: 'test-results/passkey-options-requirement-kept.png' });
  // The page message without the passkey, as a script in the page would send it: refused by the background.
  const bare = await pageMessage<{ error?: { code: string } }>(options, { type: 'countersign/agent-verification', thumbprint: agent.agentKeyThumbprint, required: false });
  expect(bare.error?.code).toBe('ERR_NOT_ALLOWED');
  expect(agent.passkeyRequired).toBe(true);
  expect(requirement).toEqual([true]);
  // The next approval, which did not ask for the passkey, still needs it and carries its assertion.
  const { operation, pending } = ask();
  const { page } = await windowWithPasskey();
  await showing(page, operation.operation_id);
  await expect(page.locator('#approve')).toHaveText(/^Approve with passkey/);
  await page.locator('#approve').click();
  const result = await pending;
  expect(result.status === 'approved' && result.userVerified).toBe(true);
  // Off, confirmed with the passkey (the window's authenticator and this one are one device): the agent is told it is off.
  await carryCredentials((await windowWithPasskey()).authenticator, optionsAuthenticator);
  await optionsAuthenticator.cdp.send('WebAuthn.setUserVerified', { authenticatorId: optionsAuthenticator.id, isUserVerified: true });
  await box.click();
  // The status line says why if the background refused: then the poll shows its words.
  await expect.poll(async () => (await options.locator('#agents-status').textContent()) || String(agent.passkeyRequired)).toBe('false');
  await expect(box).not.toBeChecked();
  expect(requirement).toEqual([true, false]);
});

test('passkey replaced: agents are told, and the old passkey no longer approves', async () => {
  await options.locator('#passkey-register').click();
  // Replacing asks first (the page's own confirmation).
  await options.getByRole('button', { name: 'Replace the passkey' }).last().click();
  await expect.poll(() => announced.length).toBe(2);
  expect(announced[1]?.credential_id).not.toBe(announced[0]?.credential_id);
  const { operation, pending } = ask('required');
  const { page, authenticator } = await windowWithPasskey();
  await showing(page, operation.operation_id);
  // The window's authenticator holds only the old passkey: the browser finds no allowed credential.
  await page.locator('#approve').click();
  await expect(page.locator('#status')).toContainText('The passkey was cancelled or took too long. Nothing was approved');
  expect(await stateOf(page, operation.operation_id)).toBe('pending');
  await carryCredentials(optionsAuthenticator, authenticator);
  await expect(page.locator('#approve')).toBeEnabled();
  await page.locator('#approve').click();
  const result = await pending;
  expect(result.status === 'approved' && result.passkeyAssertion?.credential_id).toBe(announced[1]?.credential_id);
});

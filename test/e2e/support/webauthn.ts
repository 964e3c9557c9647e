import type { CDPSession, Page } from '@playwright/test';

/**
 * Chromium's virtual authenticators over CDP (WebAuthn domain), for the passkey tests and bench:
 * one covers only the page its CDP session is on, so a credential registered in the options page
 * is copied into the approval window's own authenticator before that window calls get().
 */

export interface Authenticator {
  cdp: CDPSession;
  id: string;
}

/** An internal (platform) authenticator on `page`, user verification on and passing. */
export async function authenticatorOn(page: Page): Promise<Authenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  return { cdp, id: authenticatorId };
}

/**
 * The credentials of `from` added to `to`: those it lacks, and those it holds with a lower
 * signature counter (an older copy would look like a cloned authenticator to a relying party).
 * The same device, as far as WebAuthn can tell.
 */
export async function carryCredentials(from: Authenticator, to: Authenticator): Promise<void> {
  const { credentials } = await from.cdp.send('WebAuthn.getCredentials', { authenticatorId: from.id });
  const { credentials: held } = await to.cdp.send('WebAuthn.getCredentials', { authenticatorId: to.id });
  for (const credential of credentials) {
    if (credential.rpId) rpIds.set(credential.credentialId, credential.rpId);
    const copy = held.find((h) => h.credentialId === credential.credentialId);
    if (copy && copy.signCount >= credential.signCount) continue;
    if (copy) await to.cdp.send('WebAuthn.removeCredential', { authenticatorId: to.id, credentialId: copy.credentialId });
    await to.cdp.send('WebAuthn.addCredential', { authenticatorId: to.id, credential: { ...credential, rpId: rpIds.get(credential.credentialId) } });
  }
}

/** Each credential's RP ID as first seen: one added over CDP comes back without it, and adding it again needs it. */
const rpIds = new Map<string, string>();

import { formatExtensionsHeader } from '../protocol/index';
import type { SessionSigner } from './session-token';

/**
 * One Session the kit plays, signed out or signed in to the scenario's account (section 3, "Who
 * can approve it"): its Poppy headers for each request (core 5.3, 7; docs/core-assumptions.md,
 * "Request headers") and the URLs on the Company's origin, the only origin it talks to.
 */
export class Caller {
  readonly label: string;
  readonly sid: string;
  readonly signedIn: boolean;
  readonly #origin: URL;
  readonly #signer: SessionSigner;
  readonly #accountHeaders: Record<string, string>;

  constructor(options: { label: string; sid: string; origin: URL; signer: SessionSigner; accountHeaders?: Record<string, string> | undefined }) {
    this.label = options.label;
    this.sid = options.sid;
    this.#origin = options.origin;
    this.#signer = options.signer;
    this.#accountHeaders = options.accountHeaders ?? {};
    this.signedIn = options.accountHeaders !== undefined;
  }

  /** `declare`: undefined declares operations v2 (section 2), a string is sent as is, false sends none. */
  async headers(declare?: string | false): Promise<Record<string, string>> {
    const headers: Record<string, string> = { 'Poppy-Session': await this.#signer.sign(this.sid), 'Poppy-Version': '0.4', ...this.#accountHeaders };
    const extensions = declare === undefined ? formatExtensionsHeader() : declare;
    if (extensions !== false) headers['Poppy-Extensions'] = extensions;
    return headers;
  }

  url(path: string): string {
    return new URL(path, this.#origin).href;
  }

  /** The same Session without the account's headers: signed out (section 3, spec 5.5). */
  signedOut(label: string): Caller {
    return new Caller({ label, sid: this.sid, origin: this.#origin, signer: this.#signer });
  }
}

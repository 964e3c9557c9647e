import { CountersignError } from '../protocol/errors';
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

  /**
   * The URL of a scenario path, its variables filled. Guard: it stays on the Company's origin
   * whatever a variable held: a value the Company answered with (`setup.capture`) may be
   * `/elsewhere.example`, which would make `/{{next}}/orders` a URL of another host.
   */
  url(path: string): string {
    const url = /^\/(?![/\\])/.test(path) ? new URL(path, this.#origin) : undefined;
    if (url?.origin !== this.#origin.origin) {
      throw new CountersignError('ERR_SCENARIO_INVALID', `scenario: the path ${JSON.stringify(path.slice(0, 200))}: expected a path on ${this.#origin.origin} once its variables are filled, got one that leaves it; nothing was sent`);
    }
    return url.href;
  }

  /** The same Session without the account's headers: signed out (section 3, spec 5.5). */
  signedOut(label: string): Caller {
    return new Caller({ label, sid: this.sid, origin: this.#origin, signer: this.#signer });
  }
}

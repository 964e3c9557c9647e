import { formatApprovalHeader } from '../protocol/index';
import { apiAnswer, type Answer, type AskOptions, type Thread, type Variant } from './answer';
import { send } from './company-http';
import type { Caller } from './caller';
import { expand, type RequestTemplate, type Variables } from './scenario';

/**
 * Section 4 and 6, "APIs": the scenario's request, sent again with the approval in
 * `Poppy-Approval` ("the same request again, with the same method, URL, and body").
 */
export class ApiThread implements Thread {
  readonly interface = 'api' as const;
  readonly #caller: Caller;
  readonly #requests: Partial<Record<Variant, RequestTemplate>>;
  readonly #variables: Variables;

  constructor(caller: Caller, requests: Partial<Record<Variant, RequestTemplate>>, variables: Variables) {
    this.#caller = caller;
    this.#requests = requests;
    this.#variables = variables;
  }

  async ask(variant: Variant, options: AskOptions = {}): Promise<Answer> {
    const template = this.#requests[variant];
    if (template === undefined) throw new Error(`the scenario has no api.${variant}`);
    const request = expand(template, this.#variables);
    const headers = { ...(await this.#caller.headers(options.declare)), ...request.headers };
    const approval = options.rawApprovalHeader ?? (options.approval === undefined ? undefined : formatApprovalHeader(options.approval));
    if (approval !== undefined) headers['Poppy-Approval'] = approval;
    return apiAnswer(await send({ method: request.method, url: this.#caller.url(request.path), headers, body: request.body }));
  }
}

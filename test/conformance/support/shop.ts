import type { FetchLike, FindOutcome } from '../../../src/agent/index';

/**
 * The reference Company's shop, as the Personal Agent side of the tests sees it: who asks, what
 * they ask for, and how an agent finds out whether an action was performed (section 7). No
 * test framework here: the chaos workers import it too.
 */

/** Alex, signed in (the seed's account): the Poppy headers of the requests. */
export const ALEX = { 'Poppy-Session': 'sess_alex_laptop', 'Poppy-Version': '0.4', Authorization: 'Bearer tok_alex' };
/** A signed-out Session, for the guest order. */
export const GUEST = { 'Poppy-Session': 'sess_guest_pa', 'Poppy-Version': '0.4' };
export const SIGNED_IN = { kind: 'signed_in' as const, account: 'alex@example.com' };
export const THIS_SESSION = { kind: 'this_session' as const };

export const EXCHANGE_PATH = '/orders/ord_7Hk2/exchanges';
export const EXCHANGE_M = { item_id: 'itm_4Qa', replacement_sku: 'stormline-insulated-m' };
export const EXCHANGE_L = { item_id: 'itm_4Qa', replacement_sku: 'stormline-insulated-l' };
export const TOOL_ARGS = { order_id: 'ord_7Hk2', ...EXCHANGE_M };

export class Clock {
  ms = Date.now();
  readonly now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

/**
 * Section 7: "the Personal Agent finds out another way, such as from the order in the Company's
 * API". Reads the order (or subscription) the operation's terms name and looks for the operation.
 */
export function referenceFindOutcome(company: { url: string }, headers: Record<string, string> = ALEX, fetcher: FetchLike = fetch): FindOutcome {
  return async ({ operation }) => {
    const terms = operation.terms ?? {};
    if (typeof terms.order_id === 'string') {
      const response = await fetcher(`${company.url}/orders/${terms.order_id}`, { headers });
      if (response.status !== 200) return undefined;
      const body = (await response.json()) as { order: { exchanges: Array<{ operation_id: string }> } };
      const exchange = body.order.exchanges.find((e) => e.operation_id === operation.operation_id);
      return { performed: exchange !== undefined, evidence: exchange };
    }
    if (typeof terms.subscription_id === 'string') {
      const response = await fetcher(`${company.url}/subscriptions/${terms.subscription_id}`, { headers });
      if (response.status !== 200) return undefined;
      const body = (await response.json()) as { subscription: { cancellation: { operation_id: string } | null } };
      return { performed: body.subscription.cancellation?.operation_id === operation.operation_id, evidence: body.subscription.cancellation };
    }
    return undefined;
  };
}

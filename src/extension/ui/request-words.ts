import { inspectText } from '../../summary/text-inspection.ts';
import type { Translate } from './i18n';

/**
 * The agent's request and the Session it was made in, in the person's words. These values were
 * validated at the bridge (docs/bridge-protocol.md, `approval_request`); here they are read
 * defensively all the same, because a stored record from an older version may lack a member.
 */
interface RequestLike {
  interface?: unknown;
  method?: unknown;
  url?: unknown;
  body?: unknown;
  tool?: unknown;
  server_url?: unknown;
  arguments?: unknown;
  conversation_id?: unknown;
}

function asRequest(request: unknown): RequestLike | undefined {
  return request && typeof request === 'object' ? (request) : undefined;
}

/** The JSON object the agent sent (API body or MCP arguments), for the review. */
export function requestBody(request: unknown): Record<string, unknown> | undefined {
  const r = asRequest(request);
  if (!r) return undefined;
  const candidate = r.interface === 'mcp' ? r.arguments : r.body;
  return candidate && typeof candidate === 'object' && !Array.isArray(candidate) ? (candidate as Record<string, unknown>) : undefined;
}

/** One sentence for how the agent reached the Company, and the data it sent (or ''). */
export function describeRequest(request: unknown, t: Translate): { sentence: string; data: string } {
  const r = asRequest(request);
  const show = (v: unknown) => inspectText(String(v)).display;
  const data = (v: unknown) => (v === undefined ? '' : inspectText(JSON.stringify(v, null, 2)).display);
  switch (r?.interface) {
    case 'api':
      return { sentence: t('requestApi', [show(r.method), show(r.url)]), data: data(r.body) };
    case 'mcp':
      return r.server_url
        ? { sentence: t('requestToolAt', [show(r.tool), show(r.server_url)]), data: data(r.arguments) }
        : { sentence: t('requestTool', show(r.tool)), data: data(r.arguments) };
    case 'conversation':
      return { sentence: t('requestConversation', show(r.conversation_id)), data: '' };
    default:
      return { sentence: t('requestUnknown'), data: r ? data(r) : '' };
  }
}

/** For whom the approval counts (spec section 3, "Who can approve it"), in words. */
export function sessionWords(session: unknown, t: Translate): string {
  const s = session && typeof session === 'object' ? (session as { kind?: unknown; account?: unknown }) : undefined;
  if (s?.kind !== 'signed_in') return t('forThisConversation');
  return typeof s.account === 'string' && s.account !== '' ? t('forAccountNamed', inspectText(s.account, { singleLine: true }).display) : t('forAccount');
}

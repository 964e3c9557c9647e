import type { ToolPolicies, ToolPolicy } from './upstream-spec';

/**
 * Which policy a tool gets (docs/mcp-gateway.md, "Policies"), for every upstream alike, an
 * operations v2 Company included: the local config decides first. Overrides come only from the
 * config file: there is no button anywhere that turns `ask` into `allow`.
 *
 * 1. A `deny` glob that matches: the tool is not listed and cannot be called.
 * 2. `--ask-all` (or the upstream's `ask_all`): every other tool asks.
 * 3. An `ask` glob, then an `allow` glob, that matches.
 * 4. Otherwise, for a Company the config names: allowed, because the Company's own operations ask
 *    the person for what it does on their behalf (its perform loop).
 * 5. Otherwise the tool's own annotations: `readOnlyHint: true` is allowed, everything else asks.
 *    Annotations are the server's claims, not facts (a "read-only" tool may still return
 *    secrets), which is why `--ask-all` exists.
 */
export function toolPolicy(
  tool: { name: string; annotations?: { readOnlyHint?: unknown } | undefined },
  policies: ToolPolicies | undefined,
  askAll: boolean,
  company = false,
): ToolPolicy {
  if (matchesAny(tool.name, policies?.deny)) return 'deny';
  if (askAll) return 'ask';
  if (matchesAny(tool.name, policies?.ask)) return 'ask';
  if (matchesAny(tool.name, policies?.allow)) return 'allow';
  if (company) return 'allow';
  return tool.annotations?.readOnlyHint === true ? 'allow' : 'ask';
}

function matchesAny(name: string, globs: readonly string[] | undefined): boolean {
  return (globs ?? []).some((glob) => globToRegExp(glob).test(name));
}

/** `*` is any run of characters, `?` exactly one; every other character stands for itself. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (const ch of glob) {
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else source += ch.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'u');
}

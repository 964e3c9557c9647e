import type { AgentProblem, Snapshot } from '../snapshot';

export interface Diagnosis {
  severity: 'ok' | 'info' | 'problem';
  /** i18n message name and its substitutions. */
  message: string;
  substitutions?: string[];
  /** A counted message (`<message>_one`, `<message>_other`): the count, shown first. */
  count?: number;
  /** The command most likely to fix it, shown as text to copy. */
  fix?: string;
  /** Every command that may fix it, most useful first (`fix` is the first); only when there is more than one. */
  fixes?: string[];
}

const DOCTOR = 'countersign-bridge doctor';

/** What each agent problem is called in the popup; each takes the agent's name. */
const AGENT_PROBLEM_MESSAGES: Record<AgentProblem['kind'], string> = {
  unpaired: 'diagUnpaired',
  revoked: 'diagRevoked',
  version: 'diagVersion',
  auth: 'diagAuth',
  'too-large': 'diagTooLarge',
};

function installCommand(snapshot: Snapshot): string {
  return `countersign-bridge install --browser ${snapshot.browserFamily === 'firefox' ? 'firefox' : 'chromium'}`;
}

/**
 * Why the bridge is down, from the browser's own error string. Chromium says "Specified native
 * messaging host not found." for a missing manifest, a relative `path` or an origin without its
 * trailing `/`; "Access to the specified native messaging host is forbidden." when
 * allowed_origins does not name this extension; "Native host has exited." when the launcher
 * cannot run or the host crashed. Firefox says "No such native application …" for all of a
 * missing manifest, a relative `path` and `allowed_extensions` without this add-on: the popup
 * cannot tell which, so it says both and leads with the doctor, which can.
 */
function bridgeDown(snapshot: Snapshot): Diagnosis {
  const error = (snapshot.bridgeError ?? '').toLowerCase();
  const install = installCommand(snapshot);
  if (snapshot.browserFamily === 'firefox' && error.includes('no such native application')) {
    return { severity: 'problem', message: 'diagBridgeMissingFirefox', fix: DOCTOR, fixes: [DOCTOR, install] };
  }
  if (error.includes('not found') || error.includes('no such native application')) return { severity: 'problem', message: 'diagBridgeMissing', fix: install };
  if (error.includes('forbidden') || error.includes('not allowed')) return { severity: 'problem', message: 'diagBridgeForbidden', fix: install };
  if (error.includes('exited')) return { severity: 'problem', message: 'diagBridgeExited', fix: DOCTOR };
  return { severity: 'problem', message: 'diagBridgeDown', substitutions: [snapshot.bridgeError ?? '—'], fix: DOCTOR };
}

/** No agent connected: a person who never paired one needs a different next step from one whose agents are offline. */
function noAgent(snapshot: Snapshot): Diagnosis {
  const paired = snapshot.agents.some((a) => a.revokedAt === undefined);
  return { severity: 'info', message: paired ? 'diagNoAgent' : 'diagNeverPaired' };
}

/** Agent problems, once per agent and kind, newest first. */
function agentProblems(snapshot: Snapshot): Diagnosis[] {
  const out: Diagnosis[] = [];
  const seen = new Set<string>();
  for (const p of [...snapshot.problems].reverse()) {
    const key = `${p.kind}:${p.agentName}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ severity: 'problem', message: AGENT_PROBLEM_MESSAGES[p.kind], substitutions: [p.agentName] });
  }
  return out;
}

/** What is wrong with the connection, in the person's words, each with its fix (shown in the toolbar popup). */
export function diagnose(snapshot: Snapshot): Diagnosis[] {
  const connection =
    snapshot.bridge === 'down'
      ? bridgeDown(snapshot)
      : snapshot.agentsConnected === 0
        ? noAgent(snapshot)
        : { severity: 'ok' as const, message: 'diagConnected', count: snapshot.agentsConnected };
  return [connection, ...agentProblems(snapshot)];
}

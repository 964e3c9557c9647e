import type { Snapshot } from '../snapshot';

export interface Diagnosis {
  severity: 'ok' | 'info' | 'problem';
  /** i18n message name and its substitutions. */
  message: string;
  substitutions?: string[];
  /** A command that fixes it, shown as text to copy. */
  fix?: string;
}

/**
 * What is wrong with the connection, in the person's words, each with its fix (shown in the toolbar
 * popup). The browser's own error strings are the evidence. Chromium says "Specified native
 * messaging host not found." for a missing manifest, a relative `path` or an origin without its
 * trailing `/`; "Access to the specified native messaging host is forbidden." when
 * allowed_origins does not name this extension; "Native host has exited." when the launcher
 * cannot run or the host crashed.
 */
export function diagnose(snapshot: Snapshot): Diagnosis[] {
  const out: Diagnosis[] = [];
  const browserArg = snapshot.browserFamily === 'firefox' ? 'firefox' : 'chromium';
  if (snapshot.bridge === 'down') {
    const error = (snapshot.bridgeError ?? '').toLowerCase();
    if (error.includes('not found') || error.includes('no such native application')) {
      out.push({ severity: 'problem', message: 'diagBridgeMissing', fix: `countersign-bridge install --browser ${browserArg}` });
    } else if (error.includes('forbidden') || error.includes('not allowed')) {
      out.push({ severity: 'problem', message: 'diagBridgeForbidden', fix: `countersign-bridge install --browser ${browserArg}` });
    } else if (error.includes('exited')) {
      out.push({ severity: 'problem', message: 'diagBridgeExited', fix: 'countersign-bridge doctor' });
    } else {
      out.push({ severity: 'problem', message: 'diagBridgeDown', substitutions: [snapshot.bridgeError ?? '—'], fix: 'countersign-bridge doctor' });
    }
  } else if (snapshot.agentsConnected === 0) {
    out.push({ severity: 'info', message: 'diagNoAgent' });
  } else {
    out.push({ severity: 'ok', message: 'diagConnected', substitutions: [String(snapshot.agentsConnected)] });
  }
  const seen = new Set<string>();
  for (const p of [...snapshot.problems].reverse()) {
    const key = `${p.kind}:${p.agentName}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const message = { unpaired: 'diagUnpaired', revoked: 'diagRevoked', version: 'diagVersion', auth: 'diagAuth' }[p.kind];
    out.push({ severity: 'problem', message, substitutions: [p.agentName] });
  }
  return out;
}

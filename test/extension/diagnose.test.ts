import { describe, it, expect } from 'vitest';
import { diagnose } from '../../src/extension/ui/diagnose';
import type { Snapshot } from '../../src/extension/snapshot';

const base: Snapshot = {
  bridge: 'up',
  bridgeError: null,
  agentsConnected: 1,
  problems: [],
  browserFamily: 'chromium',
  active: [],
  history: [],
  pairings: [],
  agents: [],
  throttled: [],
  extensionKeyThumbprint: null,
};

describe('popup diagnosis (each connection state with its fix; docs/ui.md, "First run")', () => {
  it('bridge not installed → the install command for this browser', () => {
    const [d] = diagnose({ ...base, bridge: 'down', bridgeError: 'Specified native messaging host not found.' });
    expect(d).toMatchObject({ severity: 'problem', message: 'diagBridgeMissing', fix: 'countersign-bridge install --browser chromium' });
  });
  it('Firefox "No such native application" → its own message (missing or not allowed), the doctor first, then the install command', () => {
    const [f] = diagnose({ ...base, browserFamily: 'firefox', bridge: 'down', bridgeError: 'No such native application dev.countersign.bridge' });
    expect(f).toEqual({
      severity: 'problem',
      message: 'diagBridgeMissingFirefox',
      fix: 'countersign-bridge doctor',
      fixes: ['countersign-bridge doctor', 'countersign-bridge install --browser firefox'],
    });
  });
  it('wrong allowed_origins → reinstall for this extension', () => {
    expect(diagnose({ ...base, bridge: 'down', bridgeError: 'Access to the specified native messaging host is forbidden.' })[0]?.message).toBe('diagBridgeForbidden');
  });
  it('host exits → the doctor', () => {
    expect(diagnose({ ...base, bridge: 'down', bridgeError: 'Native host has exited.' })[0]).toMatchObject({ message: 'diagBridgeExited', fix: 'countersign-bridge doctor' });
  });
  it('bridge running, no agent ever paired (or only revoked ones) → never paired', () => {
    expect(diagnose({ ...base, agentsConnected: 0 })[0]).toEqual({ severity: 'info', message: 'diagNeverPaired' });
    const revoked = { thumbprint: 'T1', name: 'A', pairedAt: 1, revokedAt: 2, fingerprint: 'AAAA-BBBB' };
    expect(diagnose({ ...base, agentsConnected: 0, agents: [revoked] })[0]?.message).toBe('diagNeverPaired');
  });
  it('bridge running, paired agents all offline → no agent connected', () => {
    const paired = { thumbprint: 'T1', name: 'A', pairedAt: 1, fingerprint: 'AAAA-BBBB' };
    expect(diagnose({ ...base, agentsConnected: 0, agents: [paired] })[0]).toEqual({ severity: 'info', message: 'diagNoAgent' });
  });
  it('a request too large to show → named per agent', () => {
    const out = diagnose({ ...base, problems: [{ kind: 'too-large', agentName: 'Builder', at: 1 }] });
    expect(out[1]).toEqual({ severity: 'problem', message: 'diagTooLarge', substitutions: ['Builder'] });
  });
  it('unpaired, revoked and version problems are listed once per agent, newest first', () => {
    const out = diagnose({
      ...base,
      problems: [
        { kind: 'unpaired', agentName: 'A', at: 1 },
        { kind: 'unpaired', agentName: 'A', at: 2 },
        { kind: 'revoked', agentName: 'B', at: 3 },
        { kind: 'version', agentName: 'C', at: 4 },
      ],
    });
    expect(out.map((d) => d.message)).toEqual(['diagConnected', 'diagVersion', 'diagRevoked', 'diagUnpaired']);
  });
});

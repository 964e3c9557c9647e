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

describe('popup diagnosis (issue 5: each connection state with its fix)', () => {
  it('bridge not installed → the install command for this browser', () => {
    const [d] = diagnose({ ...base, bridge: 'down', bridgeError: 'Specified native messaging host not found.' });
    expect(d).toMatchObject({ severity: 'problem', message: 'diagBridgeMissing', fix: 'countersign-bridge install --browser chromium' });
    const [f] = diagnose({ ...base, browserFamily: 'firefox', bridge: 'down', bridgeError: 'No such native application dev.countersign.bridge' });
    expect(f?.fix).toBe('countersign-bridge install --browser firefox');
  });
  it('wrong allowed_origins → reinstall for this extension', () => {
    expect(diagnose({ ...base, bridge: 'down', bridgeError: 'Access to the specified native messaging host is forbidden.' })[0]?.message).toBe('diagBridgeForbidden');
  });
  it('host exits → the doctor', () => {
    expect(diagnose({ ...base, bridge: 'down', bridgeError: 'Native host has exited.' })[0]).toMatchObject({ message: 'diagBridgeExited', fix: 'countersign-bridge doctor' });
  });
  it('bridge running but no agent', () => {
    expect(diagnose({ ...base, agentsConnected: 0 })[0]?.message).toBe('diagNoAgent');
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

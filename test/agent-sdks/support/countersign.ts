import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Companion } from '../../../src/agent/companion';
import type { ApprovalRecord } from '../../../src/extension/store';
import { FakeExtension, waitFor } from '../../agent/harness';
import { person } from '../../coding-agents/support/coding-agent-suite';

/**
 * Countersign for the agent-SDK suites: the real bridge process in front of the real extension
 * services (test/agent/harness.ts), and a Companion paired with it as the person would pair it.
 * The person's answers are played by test/coding-agents/support/coding-agent-suite.ts `person`.
 */
export interface Countersign {
  ext: FakeExtension;
  companion: Companion;
  dispose(): Promise<void>;
}

export async function startCountersign(agentName: string): Promise<Countersign> {
  const ext = await FakeExtension.start();
  const configDir = await mkdtemp(path.join(os.tmpdir(), 'cs-sdk-'));
  const companion = await ext.pairConfirmed(await Companion.connect({ agentName, configDir, socketPath: ext.socketPath }));
  return {
    ext,
    companion,
    dispose: async () => {
      await companion.close().catch(() => undefined);
      await ext.dispose();
      await rm(configDir, { recursive: true, force: true });
    },
  };
}

/**
 * The person approves the next prompt, but `change` runs first, while the card is on screen: what
 * a caller, a tool or a resumed history that alters the input after it was asked about would do.
 */
export async function approveAfterChange(ext: FakeExtension, change: () => void): Promise<void> {
  const record = await waitFor(async () => (await ext.store.byState('pending'))[0], 'a pending prompt');
  change();
  await ext.queue.decide(record.key, 'approve');
}

/** Runs `scenario` while the person answers every prompt with `answer`; returns what it returned and the prompts. */
export async function answeredBy<T>(ext: FakeExtension, answer: 'approve' | 'decline', scenario: () => Promise<T>): Promise<{ value: T; prompts: ApprovalRecord[] }> {
  const asked = person(ext, answer);
  // Stopped even when the scenario throws, so no answering loop outlives its test.
  const value = await scenario().catch(async (error: unknown) => {
    await asked.stop();
    throw error;
  });
  return { value, prompts: await asked.stop() };
}

import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Companion } from '../../../src/agent/index';
import { isOutcomeOpen } from '../../../src/extension/approval-state';
import type { ApprovalRecord } from '../../../src/extension/store';
import { DirectExtension, FakeExtension } from '../../agent/harness';

/**
 * The real companion side for the conformance and chaos suites: the SDK's Companion, through the
 * real bridge process (FakeExtension) or an in-process socket (DirectExtension), to the real
 * extension services (ApprovalQueue, Store over fake-indexeddb, Ed25519 decisions). Only the
 * person is simulated: `Person` watches the extension's pending prompts, as the approval window
 * shows them, and answers each with a policy, as a click would.
 */

export type Choice = 'approve' | 'decline' | 'withdraw' | 'wait';

export interface SeenPrompt {
  key: string;
  agent: string;
  operationId: string;
  revision: string;
  record: ApprovalRecord;
  /** Revisions of the same operation whose outcome was open when this prompt appeared (section 7: must be none). */
  openSiblings: string[];
}

export class Person {
  readonly prompts: SeenPrompt[] = [];
  private readonly seen = new Set<string>();
  private running = true;
  private readonly loop: Promise<void>;
  private wake: (() => void) | undefined;
  private dirty = true;

  constructor(
    private readonly ext: DirectExtension | FakeExtension,
    public policy: (record: ApprovalRecord) => Choice = () => 'approve',
    private readonly pollMs = 25,
  ) {
    // The window opens when a prompt is stored (store.insert, or a held one released): the
    // person looks then, and otherwise every `pollMs`, as a person glancing at the badge would.
    const store = ext.store;
    const insert = store.insert.bind(store);
    store.insert = async (...args: Parameters<typeof store.insert>) => {
      await insert(...args);
      this.poke();
    };
    const transition = store.transition.bind(store);
    store.transition = async (...args: Parameters<typeof store.transition>) => {
      const result = await transition(...args);
      this.poke();
      return result;
    };
    this.loop = this.run();
  }

  private poke(): void {
    this.dirty = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      if (!this.dirty) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.pollMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = undefined;
      }
      this.dirty = false;
      const pending = await this.ext.store.byState('pending');
      for (const record of pending) {
        if (!this.seen.has(record.key)) {
          this.seen.add(record.key);
          const siblings = await this.ext.store.byOperation(record.agent, record.company.origin, record.operationId);
          this.prompts.push({
            key: record.key,
            agent: record.agent,
            operationId: record.operationId,
            revision: record.revision,
            record,
            openSiblings: siblings.filter((s) => s.revision !== record.revision && isOutcomeOpen(s.state)).map((s) => s.revision),
          });
        }
        const choice = this.policy(record);
        if (choice === 'wait') continue;
        try {
          if (choice === 'decline') await this.ext.queue.decide(record.key, 'decline');
          else {
            await this.ext.queue.decide(record.key, 'approve');
            if (choice === 'withdraw') await this.ext.queue.withdraw(record.key);
          }
        } catch {
          // Superseded or expired meanwhile: the window would have closed.
        }
      }
    }
  }

  promptsFor(operationId: string): SeenPrompt[] {
    return this.prompts.filter((p) => p.operationId === operationId);
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }
}

export interface Agents {
  ext: DirectExtension | FakeExtension;
  /** A new paired Companion in a fresh config folder. */
  paired(options?: { ackWindowMs?: number }): Promise<Companion>;
  /** A Companion on an existing config folder (a restarted agent). */
  reconnect(configDir: string, options?: { ackWindowMs?: number }): Promise<Companion>;
  dispose(): Promise<void>;
}

let seq = 0;

/**
 * The extension side and a way to make paired agents. `bridge: true` runs the real bridge
 * process. `memoryDisk: true` puts the agents' config folders on tmpfs (/dev/shm) when there is
 * one: the same atomic writes and fsyncs, without a disk's latency (the chaos suite makes
 * thousands of them).
 */
export async function startAgents(options: { bridge: boolean; memoryDisk?: boolean }): Promise<Agents> {
  const base = options.memoryDisk === true && existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const ext = options.bridge ? await FakeExtension.start() : await DirectExtension.start();
  const companions: Companion[] = [];
  const dirs: string[] = [];
  const connect = async (configDir: string, ackWindowMs = 5): Promise<Companion> => {
    const companion = await Companion.connect({ agentName: `Perform agent ${++seq}`, configDir, socketPath: ext.socketPath, ackWindowMs });
    companions.push(companion);
    return companion;
  };
  return {
    ext,
    async paired(opts = {}) {
      const dir = await mkdtemp(path.join(base, 'csc-'));
      dirs.push(dir);
      const companion = await connect(path.join(dir, 'agent'), opts.ackWindowMs);
      // The extension lets only a few pairings wait for the person at once; concurrent lanes take turns.
      let pairing: Awaited<ReturnType<Companion['pair']>>;
      for (;;) {
        try {
          pairing = await companion.pair();
          break;
        } catch (error) {
          if ((error as { code?: string }).code !== 'ERR_THROTTLED') throw error;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }
      for (;;) {
        const shown = [...ext.sessions.pairings.values()].find((p) => p.code === pairing.code);
        if (shown !== undefined) {
          await ext.sessions.answerPairing(shown.pairingId, { confirmed: true, code: pairing.code });
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      await pairing.confirmed;
      return companion;
    },
    reconnect: (configDir, opts = {}) => connect(configDir, opts.ackWindowMs),
    async dispose() {
      for (const companion of companions) await companion.close().catch(() => undefined);
      await ext.dispose();
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    },
  };
}

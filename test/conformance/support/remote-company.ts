import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The parent side of company-host.ts: reference Companies in another process, each on its own
 * real port. Used by the chaos suite so that the Company's CPU work doesn't share the agent's core.
 */

const HOST = path.join(path.dirname(fileURLToPath(import.meta.url)), 'company-host.ts');
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export interface RemoteCompany {
  url: string;
  setFaults(faults: Partial<Record<'delayMs' | 'dropAfterPerform' | 'holdPerformMs' | 'crashAfterPerform' | 'crashUnknownMs', number>>): Promise<void>;
  /** Move the Company's clock (for expiry). */
  advance(ms: number): Promise<void>;
  /** Close it; returns `state.performed` and anything it logged as an unexpected error. */
  close(): Promise<{ performed: Map<string, number>; errors: string[] }>;
}

export class CompanyHost {
  private next = 1;
  private readonly waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (m: { id: number; result?: unknown; error?: string }) => {
      const w = this.waiting.get(m.id);
      if (w === undefined) return;
      this.waiting.delete(m.id);
      if (m.error !== undefined) w.reject(new Error(m.error));
      else w.resolve(m.result);
    });
    child.on('exit', (code) => {
      for (const w of this.waiting.values()) w.reject(new Error(`company host exited (${code})`));
      this.waiting.clear();
    });
  }

  static async start(): Promise<CompanyHost> {
    const child = spawn(process.execPath, ['--import', 'tsx', HOST], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const host = new CompanyHost(child);
    await new Promise<void>((resolve, reject) => {
      host.waiting.set(0, { resolve: () => resolve(), reject });
      setTimeout(() => reject(new Error('company host did not start')), 30_000).unref();
    });
    return host;
  }

  private call<T>(request: Record<string, unknown>): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.child.send({ ...request, id });
    });
  }

  async create(): Promise<RemoteCompany> {
    const { url } = await this.call<{ url: string }>({ op: 'create' });
    return {
      url,
      setFaults: (faults) => this.call({ op: 'faults', url, faults }),
      advance: (ms) => this.call({ op: 'advance', url, ms }),
      close: async () => {
        const { performed, errors } = await this.call<{ performed: [string, number][]; errors: string[] }>({ op: 'close', url });
        return { performed: new Map(performed), errors };
      },
    };
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.disconnect();
    await exited;
  }
}

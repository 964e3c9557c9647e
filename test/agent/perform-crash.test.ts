import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Companion, PERFORM_JOURNAL_FILE, performApi, performConversation, performTool, type PerformEntry } from '../../src/agent/index';
import { Person, startAgents, type Agents, type Choice } from '../conformance/support/person';
import { ALEX, EXCHANGE_M, SIGNED_IN, TOOL_ARGS, approvalRequests, recordingFetch, referenceFindOutcome, startCompany } from '../conformance/support/reference';

/**
 * Crash and restart ("A durable journal ... keeps all of this true across an agent crash
 * and restart"). A real agent process (support/perform-child.ts: the SDK's Companion through the
 * real bridge process, and perform) is killed with SIGKILL at a chosen point; a new agent on the
 * same config folder then calls perform for the same action. It must resume from the journal:
 * the same approval sent again, never a second prompt, the action performed once.
 */

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'conformance', 'support', 'perform-child.ts');
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Child {
  process: ChildProcessWithoutNullStreams;
  steps: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: () => string;
}

function startChild(options: Record<string, unknown>): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(options)], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  const steps: string[] = [];
  let stderr = '';
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith('step ')) steps.push(line.slice(5));
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { process: child, steps, exited, stderr: () => stderr };
}

async function until(probe: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function journalOf(configDir: string): Promise<PerformEntry[]> {
  return (JSON.parse(await readFile(path.join(configDir, PERFORM_JOURNAL_FILE), 'utf8')) as { entries: PerformEntry[] }).entries;
}

describe('crash and restart: the perform journal resumes without a second prompt', () => {
  let agents: Agents;
  let person: Person;
  let choice: Choice = 'approve';

  beforeAll(async () => {
    agents = await startAgents({ bridge: true });
    person = new Person(agents.ext, () => choice, 5);
  }, 60_000);
  afterAll(async () => {
    await person?.stop();
    await agents?.dispose();
  });

  /** A paired agent's config folder, its Companion closed (the crashing process will use it). */
  async function pairedFolder(): Promise<string> {
    const companion = await agents.paired();
    await companion.close();
    return companion.configDir;
  }

  async function restart(configDir: string): Promise<Companion> {
    return agents.reconnect(configDir);
  }

  it('killed after the Company performed and before the agent heard (API): the restarted agent sends the same approval and gets the first response', { timeout: 60_000 }, async () => {
    choice = 'approve';
    const company = await startCompany();
    company.faults.dropAfterPerform = 1;
    const configDir = await pairedFolder();
    const child = startChild({ configDir, socketPath: agents.ext.socketPath, companyUrl: company.url, iface: 'api', crashAt: 'retry' });
    expect((await child.exited).signal).toBe('SIGKILL');
    expect(child.steps).toContain('journal:sent');
    expect([...company.state.performed.values()]).toEqual([1]);
    const [before] = await journalOf(configDir);
    expect(before).toMatchObject({ state: 'sent', interface: 'api' });

    const companion = await restart(configDir);
    const { fetch, seen } = recordingFetch();
    const result = await performApi({ companion, company: { origin: company.url }, session: SIGNED_IN, request: { method: 'POST', url: `${company.url}/orders/ord_7Hk2/exchanges`, body: EXCHANGE_M, headers: ALEX }, fetch });
    expect(result).toMatchObject({ status: 'performed', resumed: true, confirmedBy: 'response', response: { status: 200 } });
    // The same approval, with the Idempotency-Key journaled before the crash; no request without it.
    const sends = approvalRequests(seen);
    expect(sends).toHaveLength(1);
    expect(sends[0]!.headers['poppy-approval']).toBe(`operation_id="${before!.operation_id}", revision="${before!.revision}"`);
    expect(sends[0]!.headers['idempotency-key']).toBe(before!.idempotency_key);
    expect(seen.filter((s) => s.method === 'POST' && s.headers['poppy-approval'] === undefined)).toHaveLength(0);
    expect(person.promptsFor(before!.operation_id)).toHaveLength(1);
    expect([...company.state.performed.values()]).toEqual([1]);
    expect((await journalOf(configDir))[0]).toMatchObject({ state: 'performed' });
    expect(await agents.ext.record(companion.agentKeyThumbprint, before!.operation_id, before!.revision)).toMatchObject({ state: 'performed' });
  });

  it('killed right after the approval was journaled as sent, before it went out (MCP): resumed, performed once, no second prompt', { timeout: 60_000 }, async () => {
    choice = 'approve';
    const company = await startCompany();
    const configDir = await pairedFolder();
    const child = startChild({ configDir, socketPath: agents.ext.socketPath, companyUrl: company.url, iface: 'mcp', crashAt: 'journal:sent' });
    expect((await child.exited).signal).toBe('SIGKILL');
    expect(company.state.performed.size).toBe(0);
    const [before] = await journalOf(configDir);
    expect(before).toMatchObject({ state: 'sent', interface: 'mcp' });

    const companion = await restart(configDir);
    const result = await performTool({ companion, company: { origin: company.url }, session: SIGNED_IN, headers: ALEX, tool: 'exchange_item', arguments: TOOL_ARGS });
    expect(result).toMatchObject({ status: 'performed', resumed: true, approval: { operation_id: before!.operation_id, revision: before!.revision } });
    expect(person.promptsFor(before!.operation_id)).toHaveLength(1);
    expect(company.state.performed.get(before!.operation_id)).toBe(1);
  });

  it('killed between the User\'s approval and markSent (API): the decision comes from the journal, no second prompt', { timeout: 60_000 }, async () => {
    choice = 'approve';
    const company = await startCompany();
    const configDir = await pairedFolder();
    const child = startChild({ configDir, socketPath: agents.ext.socketPath, companyUrl: company.url, iface: 'api', crashAt: 'journal:approved' });
    expect((await child.exited).signal).toBe('SIGKILL');
    const [before] = await journalOf(configDir);
    expect(before).toMatchObject({ state: 'asked' });

    const companion = await restart(configDir);
    const result = await performApi({ companion, company: { origin: company.url }, session: SIGNED_IN, request: { method: 'POST', url: `${company.url}/orders/ord_7Hk2/exchanges`, body: EXCHANGE_M, headers: ALEX } });
    expect(result).toMatchObject({ status: 'performed', resumed: true });
    expect(person.promptsFor(before!.operation_id)).toHaveLength(1);
    expect(company.state.performed.get(before!.operation_id)).toBe(1);
  });

  it('killed while the User was being asked (conversation): the restarted agent waits on the same prompt, not a new one', { timeout: 60_000 }, async () => {
    choice = 'wait';
    const company = await startCompany();
    const created = await fetch(`${company.url}/conversations`, { method: 'POST', headers: { ...ALEX, 'Content-Type': 'application/json' }, body: '{}' });
    const conversationId = ((await created.json()) as { id: string }).id;
    const configDir = await pairedFolder();
    const child = startChild({ configDir, socketPath: agents.ext.socketPath, companyUrl: company.url, iface: 'conversation', conversationId });
    await until(() => child.steps.includes('journal:asked') && person.prompts.some((p) => p.record.company.origin === company.url), 'the prompt');
    child.process.kill('SIGKILL');
    await child.exited;
    const [before] = await journalOf(configDir);
    expect(before).toMatchObject({ state: 'asked', interface: 'conversation' });

    const companion = await restart(configDir);
    const pending = performConversation({
      companion,
      company: { origin: company.url },
      session: SIGNED_IN,
      headers: ALEX,
      conversationId,
      message: { id: 'msg_crash_1', text: 'I want to exchange my jacket for the insulated one.' },
      findOutcome: referenceFindOutcome(company),
    });
    // The same prompt is still on screen; the person decides now.
    await new Promise((resolve) => setTimeout(resolve, 100));
    choice = 'approve';
    const result = await pending;
    expect(result).toMatchObject({ status: 'performed', resumed: true });
    expect(person.promptsFor(before!.operation_id)).toHaveLength(1);
    expect(company.state.performed.get(before!.operation_id)).toBe(1);
  });
});

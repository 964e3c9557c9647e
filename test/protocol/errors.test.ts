import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Companion, CompanionError, JOURNAL_FILE, isCountersignError, type OperationInput } from '../../src/agent';
import { writePrivateFileAtomic } from '../../src/agent/files';
import { CountersignError, ERROR_CODES } from '../../src/protocol/errors';
import { parseOperation } from '../../src/protocol/operation';
import { DirectExtension, rejection } from '../agent/harness';

// Each code means one thing: the caller's mistake, local storage, or the other side. A code that
// meant all three (the former ERR_INPUT_INVALID) let no caller branch on it.

const COMPANY = { name: 'Stormline', origin: 'https://stormline.example' };
const REQUEST = { interface: 'mcp' as const, tool: 'exchange_item', arguments: { order_id: 'ord_7Hk2', item_id: 'itm_4Qa' } };
const OPERATION: OperationInput = { operation_id: 'exc_5Rt2', revision: 'rev1', summary: 'Exchange the jacket for $70.00 more.', expires_at: '2099-10-08T12:20:00-07:00' };
/** The one style of a validation message: `<field path>: expected <what>, got <what>`. */
const STYLE = /^[\w.[\]"-]+: expected .+, got .+$/;

const dirs: string[] = [];
async function configDir(): Promise<string> {
  const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'cs-errors-')), 'agent');
  dirs.push(path.dirname(dir));
  await mkdir(dir, { mode: 0o700 });
  return dir;
}
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('ERROR_CODES', () => {
  it('has no catch-all ERR_INPUT_INVALID, and the three codes that replaced it, each once', () => {
    expect(ERROR_CODES).not.toContain('ERR_INPUT_INVALID');
    for (const code of ['ERR_ARGUMENT_INVALID', 'ERR_STORAGE_FAILED', 'ERR_REMOTE'] as const) expect(ERROR_CODES.filter((c) => c === code)).toHaveLength(1);
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });

  it('travels as { code, message } only', () => {
    expect(new CountersignError('ERR_REMOTE', 'x', { cause: new Error('inner') }).toJSON()).toEqual({ code: 'ERR_REMOTE', message: 'x' });
  });
});

describe('each new code from a public entry', () => {
  it('ERR_ARGUMENT_INVALID: a caller passes Companion.connect what it does not take, and nothing is touched', async () => {
    const dir = path.join(await configDir(), 'never-made');
    const error = await rejection(Companion.connect({ agentName: 'Desk agent', configDir: dir, timeoutMs: -1 }));
    expect(isCountersignError(error, 'ERR_ARGUMENT_INVALID')).toBe(true);
    expect((error as Error).message).toBe('timeoutMs: expected a positive number, got -1');
    expect((error as Error).message).toMatch(STYLE);
    await expect(stat(dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('ERR_STORAGE_FAILED: a damaged journal in the config folder stops Companion.connect, naming the file and the line', async () => {
    const dir = await configDir();
    const ctx = { platform: process.platform, uid: process.getuid?.() };
    await writePrivateFileAtomic(path.join(dir, JOURNAL_FILE), '{"v":2,"kind":"countersign-decision-journal","decisions":[],"withdrawn":{},"seen_nonces":{}}\n{"t":"sent"}\n', ctx);
    const error = await rejection(Companion.connect({ agentName: 'Desk agent', configDir: dir, socketPath: path.join(dir, 'unused.sock') }));
    expect(isCountersignError(error, 'ERR_STORAGE_FAILED')).toBe(true);
    expect((error as Error).message).toContain(JOURNAL_FILE);
    expect((error as Error).message).toMatch(/line 2: change\.operation_id: expected .*, got nothing/);
  });

  describe('ERR_REMOTE: the extension answers with a code this SDK does not know', () => {
    let ext: DirectExtension;
    beforeAll(async () => {
      ext = await DirectExtension.start();
    });
    afterAll(async () => {
      await ext.dispose();
    });

    it('reportOutcome rejects with ERR_REMOTE and keeps the code as sent', async () => {
      const companion = await Companion.connect({ agentName: 'Desk agent', configDir: await configDir(), socketPath: ext.socketPath, timeoutMs: 3000 });
      try {
        const pairing = await companion.pair();
        const shown = await ext.pairingShown();
        await ext.sessions.answerPairing(shown.pairingId, { confirmed: true, code: pairing.code });
        await pairing.confirmed;
        const asked = companion.requestApproval({ company: COMPANY, operation: OPERATION, request: REQUEST, session: { kind: 'this_session' } });
        await ext.queue.decide(await ext.prompt(companion.agentKeyThumbprint, 'exc_5Rt2', 'rev1'), 'approve');
        expect(await asked).toMatchObject({ status: 'approved' });
        // A later extension's refusal of the outcome, in place of its ack.
        ext.tamper = (_conn, m) => (m.type === 'ack' ? [{ type: 'error', v: 2, id: m.id, code: 'ERR_FROM_A_LATER_VERSION', message: 'not this time', source: 'extension' }] : [m]);
        const error = await rejection(companion.reportOutcome({ operation_id: 'exc_5Rt2', revision: 'rev1', outcome: 'performed' }));
        expect(error).toBeInstanceOf(CompanionError);
        expect(isCountersignError(error, 'ERR_REMOTE')).toBe(true);
        expect(error).toMatchObject({ remoteCode: 'ERR_FROM_A_LATER_VERSION', source: 'extension' });
      } finally {
        ext.tamper = undefined;
        await companion.close();
      }
    });
  });
});

describe('one message style for validation failures', () => {
  it('zod issues and hand-written checks read alike: field path, what was expected, what came', () => {
    const messages: string[] = [];
    for (const odd of [{ summary: 'x' }, { operation_id: 'exc 1', revision: 'r', summary: 's', expires_at: '2099-10-08T12:20:00Z', terms: [] }]) {
      try {
        parseOperation(odd);
      } catch (error) {
        messages.push(...(error as Error).message.replace(/ \(and \d+ more\)$/, '').split('; '));
      }
    }
    expect(messages.length).toBeGreaterThan(3);
    for (const message of messages) expect(message).toMatch(/^operation\.[\w]+: expected .+, got .+$/);
    expect(messages).toContain('operation.terms: expected a JSON object, got an array');
  });
});

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SPEC_BREAKS } from '../../src/company/index';

// `npm run company` (src/company/cli.ts): thin wiring around createCompany.

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/tsx/dist/cli.mjs', import.meta.url));

describe('countersign-company CLI', () => {
  it('prints its base URL as the first line on stdout and serves poppy.json there (--port 0)', async () => {
    const child = spawn(process.execPath, [tsx, 'src/company/cli.ts', '--port', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const lines = createInterface({ input: child.stdout });
      const first = await new Promise<string>((resolve, reject) => {
        lines.once('line', resolve);
        child.once('exit', (code) => reject(new Error(`exited with ${code}`)));
      });
      expect(first).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+$/);
      const poppy = (await (await fetch(`${first}/.well-known/poppy.json`)).json()) as { organization: { name: string } };
      expect(poppy.organization.name).toBe('Stormline Outfitters');
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('--testing serves the /testing routes; --break turns a spec-breaking switch on and implies nothing else', async () => {
    for (const [args, testing] of [[['--testing', '--break', 'approval-required-401'], true], [['--break=approval-required-401'], false]] as const) {
      const child = spawn(process.execPath, [tsx, 'src/company/cli.ts', '--port', '0', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      try {
        const lines = createInterface({ input: child.stdout });
        const url = await new Promise<string>((resolve, reject) => {
          lines.once('line', resolve);
          child.once('exit', (code) => reject(new Error(`exited with ${code}`)));
        });
        const headers = { 'Poppy-Session': 'sess_cli', 'Poppy-Version': '0.4', 'Content-Type': 'application/json' };
        const clock = await fetch(`${url}/testing/clock`, { method: 'POST', headers, body: JSON.stringify({ advance_ms: 0 }) });
        expect(clock.status).toBe(testing ? 200 : 404);
        const exchange = await fetch(`${url}/orders/ord_G5xa/exchanges`, {
          method: 'POST',
          headers: { ...headers, 'Poppy-Extensions': '"operations";v="2"' },
          body: JSON.stringify({ item_id: 'itm_2Wb', replacement_sku: 'stormline-insulated-s' }),
        });
        expect(exchange.status).toBe(401);
        expect(exchange.headers.get('www-authenticate')).toBe('Bearer error="approval_required"');
      } finally {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    }
  });

  it('refuses an unknown --break name with exit code 2, listing the names', async () => {
    const child = spawn(process.execPath, [tsx, 'src/company/cli.ts', '--break', 'be-rude'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('be-rude');
    for (const name of SPEC_BREAKS) expect(stderr).toContain(name);
  });

  it('refuses an unknown argument with exit code 2', async () => {
    const child = spawn(process.execPath, [tsx, 'src/company/cli.ts', '--bogus'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
  });
});

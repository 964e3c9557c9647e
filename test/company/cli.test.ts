import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

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

  it('refuses an unknown argument with exit code 2', async () => {
    const child = spawn(process.execPath, [tsx, 'src/company/cli.ts', '--bogus'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
  });
});

import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeCacheFile, isCodeCacheOf } from '../../src/node-start/code-cache';
import { bundledForTests } from '../node-start/support/bundle-command';
import { gatewaySession } from './support/gateway-session';

// The package's countersign-mcp bundle (src/gateway/bundle-main.ts), launched as an MCP client
// launches it, from a folder of its own: it compiles its code with V8's code cache beside it.

const command = bundledForTests('countersign-mcp');

describe('countersign-mcp bundle: its code cache', () => {
  it('the first session writes the cache beside the bundle as the gateway exits; the next sessions read it, leave it, and see the same', async () => {
    const bundle = command.copy('cs-mcp-cc-');
    const dir = path.dirname(bundle);
    const configDir = command.own('cs-mcp-cc-config-');

    const first = await gatewaySession([bundle], configDir);
    expect(first).toEqual({ tools: ['client_capabilities'], answer: { roots: {} } });
    // The client's close waits for the gateway's exit, and the gateway writes the cache as it exits.
    const [name, ...more] = readdirSync(dir).filter((n) => isCodeCacheOf('countersign-mcp.mjs', n, { partial: true }));
    expect(more).toEqual([]);
    // Named for this bundle's code and this node: no other code or node ever reads it.
    const cache = path.join(dir, name!);
    expect(cache).toBe(codeCacheFile(bundle, name!.split('.')[2]!));
    const written = statSync(cache);

    for (let i = 0; i < 2; i++) expect(await gatewaySession([bundle], configDir)).toEqual(first);
    const after = statSync(cache);
    expect([after.ino, after.mtimeMs]).toEqual([written.ino, written.mtimeMs]);
  }, 60_000);
});

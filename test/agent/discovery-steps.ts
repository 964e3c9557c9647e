import { mkdir, mkdtemp } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { findAgentSocket } from '../../src/agent/discovery';

/**
 * The steps of an agent choosing a bridge socket, as a program: local.test.ts runs it in a mount
 * namespace of its own with an empty /tmp, because /tmp/countersign-<uid> is always one of the
 * folders an agent searches (docs/bridge-protocol.md, section 3.1), so a bridge running on the
 * machine would be one more socket there. Prints what each step found, as one JSON object.
 */

export const T1 = `${'A'.repeat(42)}E`;
export const T2 = `${'B'.repeat(42)}A`;
export const T3 = `${'D'.repeat(42)}A`;

/** What findAgentSocket answered: the thumbprint it chose, or its error's code and message. */
export type Found = { thumbprint: string } | { code: string; message: string };

export interface DiscoverySteps {
  /** Not pinned, no socket anywhere. */
  none: Found;
  /** Not pinned, one socket. */
  one: Found;
  /** Not pinned, two sockets. */
  several: Found;
  /** Pinned to T2, with T1 and T2 listening. */
  pinned: Found;
  /** Pinned to T3, with T1 and T2 listening. */
  pinnedMissing: Found;
}

async function found(input: Parameters<typeof findAgentSocket>[0]): Promise<Found> {
  try {
    return { thumbprint: (await findAgentSocket(input)).thumbprint };
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message };
  }
}

function listen(file: string): Promise<net.Server> {
  const server = net.createServer();
  return new Promise((resolve) => server.listen(file, () => resolve(server)));
}

export async function discoverySteps(): Promise<DiscoverySteps> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'csd-'));
  const folder = path.join(root, 'countersign');
  await mkdir(folder, { mode: 0o700 });
  const input = { platform: 'linux', env: { XDG_RUNTIME_DIR: root, TMPDIR: root }, uid: process.getuid?.() ?? 0, username: 'sam' };
  const none = await found(input);
  const servers = [await listen(path.join(folder, `${T1}.sock`))];
  const one = await found(input);
  servers.push(await listen(path.join(folder, `${T2}.sock`)));
  const steps = { none, one, several: await found(input), pinned: await found({ ...input, pinnedThumbprint: T2 }), pinnedMissing: await found({ ...input, pinnedThumbprint: T3 }) };
  for (const server of servers) server.close();
  return steps;
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  process.stdout.write(`${JSON.stringify(await discoverySteps())}\n`);
}

/**
 * A hostile local process for the adversarial end-to-end tests: its own Node process, using the
 * real SDK over the bridge's socket, as any program running as the user could. It reports what
 * happened as JSON lines on stdout and stays connected until its stdin closes.
 *
 *   hostile-agent.ts pair <name>     asks to pair under <name>; prints offered / paired / refused
 *   hostile-agent.ts flood <count>   asks to pair on <count> connections at once; prints flood
 *   hostile-agent.ts frames <count>  floods the socket on <count> connections at once with well-formed
 *                                    hellos, every other one of 1 MB, never authenticating (socket-flood.ts);
 *                                    prints flooding, then frames when its stdin closes
 *
 * The socket and private folders come from the environment (HOME, XDG_RUNTIME_DIR), as for the
 * test's own agents.
 */
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { Companion, isCountersignError } from '../../../src/agent/index.ts';
import { floodSocket, reviewFloodFrame, type FloodStats } from './socket-flood.ts';
import { waitForSocket, type StackEnv } from './stack.ts';

const [mode, arg = ''] = process.argv.slice(2);
const env = process.env as unknown as StackEnv;
const say = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);
const codeOf = (error: unknown) => (isCountersignError(error) ? error.code : String(error));

async function connect(name: string): Promise<Companion> {
  const configDir = await mkdtemp(join(env.HOME, 'hostile-'));
  return Companion.connect({ agentName: name, configDir, env: process.env, socketPath: await waitForSocket(env) });
}

const open: Companion[] = [];
const stopFlood = new AbortController();
let flooding: Promise<FloodStats> | undefined;
try {
  if (mode === 'pair') {
    const agent = await connect(arg);
    open.push(agent);
    try {
      const { code, fingerprint, confirmed } = await agent.pair();
      say({ event: 'offered', code, fingerprint });
      await confirmed.then(
        () => say({ event: 'paired' }),
        (error: unknown) => say({ event: 'refused', code: codeOf(error) }),
      );
    } catch (error) {
      say({ event: 'refused', code: codeOf(error) });
    }
  } else if (mode === 'flood') {
    // The bridge admits only a few connections that are not yet trusted; the extension only a few pairings.
    const connected = await Promise.allSettled(Array.from({ length: Number(arg) }, (_, i) => connect(`Flood ${i}`)));
    const agents = connected.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    open.push(...agents);
    const results = await Promise.allSettled(agents.map((a) => a.pair()));
    say({
      event: 'flood',
      offered: results.filter((r) => r.status === 'fulfilled').length,
      refused: [...connected, ...results].flatMap((r) => (r.status === 'rejected' ? [codeOf(r.reason)] : [])),
    });
  } else if (mode === 'frames') {
    flooding = floodSocket({ socketPath: await waitForSocket(env), parallel: Number(arg), frame: reviewFloodFrame(), signal: stopFlood.signal });
    say({ event: 'flooding' });
  } else {
    say({ event: 'error', message: `unknown mode ${mode}` });
  }
} catch (error) {
  say({ event: 'error', code: codeOf(error), message: String(error) });
}
// Stay until the test is done with us (closing stdin), as a lingering process would.
process.stdin.resume();
process.stdin.on('end', () => {
  void (async () => {
    stopFlood.abort();
    if (flooding !== undefined) {
      const stats = await flooding;
      const line = JSON.stringify({ event: 'frames', connections: stats.connections, framesSent: stats.framesSent, bytesSent: stats.bytesSent, codes: stats.codes });
      // Written before exiting: stdout is a pipe, asynchronous.
      await new Promise((r) => process.stdout.write(`${line}\n`, r));
    }
    for (const a of open) await a.close().catch(() => undefined);
    process.exit(0);
  })();
});

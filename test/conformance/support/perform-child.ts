import { Companion, performApi, performConversation, performTool, type PerformProgress } from '../../../src/agent/index';
import { ALEX, EXCHANGE_M, SIGNED_IN, TOOL_ARGS, referenceFindOutcome } from './shop';

/**
 * An agent process that crashes: `node --import tsx perform-child.ts '<json>'`. It connects its
 * Companion (the real one, through the bridge's socket), runs one perform, and kills itself with
 * SIGKILL the moment perform reports `crashAt` (a progress step, e.g. `journal:sent`), or waits
 * to be killed by the test. It prints each progress step on stdout as `step <step>` so the test
 * can follow it.
 */

interface Options {
  configDir: string;
  socketPath: string;
  companyUrl: string;
  iface: 'api' | 'mcp' | 'conversation';
  conversationId?: string;
  /** `journal:sent`, `journal:approved`, `attempt`...; undefined: never crash by itself. */
  crashAt?: string;
}

const options = JSON.parse(process.argv[2] as string) as Options;
const companion = await Companion.connect({ agentName: 'Crashing agent', configDir: options.configDir, socketPath: options.socketPath, ackWindowMs: 5 });
const onProgress = (event: PerformProgress): void => {
  const step = event.state === undefined ? event.step : `${event.step}:${event.state}`;
  process.stdout.write(`step ${step}\n`);
  if (step === options.crashAt) process.kill(process.pid, 'SIGKILL');
};
const common = { companion, company: { origin: options.companyUrl }, session: SIGNED_IN, headers: ALEX, onProgress, findOutcome: referenceFindOutcome({ url: options.companyUrl }), retry: { attempts: 3, timeoutMs: 20_000 } };
switch (options.iface) {
  case 'api':
    await performApi({ ...common, request: { method: 'POST', url: `${options.companyUrl}/orders/ord_7Hk2/exchanges`, body: EXCHANGE_M } });
    break;
  case 'mcp':
    await performTool({ ...common, tool: 'exchange_item', arguments: TOOL_ARGS });
    break;
  case 'conversation':
    await performConversation({ ...common, conversationId: options.conversationId as string, message: { id: 'msg_crash_1', text: 'I want to exchange my jacket for the insulated one.' } });
    break;
}
process.stdout.write('step done\n');
await companion.close();

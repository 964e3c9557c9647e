/**
 * Tool-call card benchmarks (docs/ui.md, "A tool call"). Measured, not asserted:
 * - the card of the largest call the window accepts (256 arguments of 1,000 characters, near the
 *   262,144-character limit) against a Company card with a summary at MAX_SUMMARY_LENGTH, the
 *   largest text the window shows whole otherwise; goal at most 10x, so the whole list stays a
 *   render of the same order as the longest summary;
 * - the intake check (toolCallSchema with its limits) of that call against JSON.parse of its frame.
 * Rendered in jsdom; medians of several runs after a warm-up. Run alone with
 * `npx tsx bench/run.ts tool-call-card`.
 */
import { JSDOM } from 'jsdom';
import { renderApprovalCard } from '../src/extension/ui/approval-card.ts';
import { translator } from '../src/extension/ui/i18n.ts';
import { toolCallAsRequest } from '../src/extension/tool-call-request.ts';
import { MAX_SUMMARY_LENGTH } from '../src/protocol/limits.ts';
import { MAX_TOOL_ARGUMENTS, toolCallSchema, type ToolCall } from '../src/protocol/tool-call.ts';
import { chromeGetMessage, englishMessages } from '../test/extension/ui/locale-table.ts';
import { jacketOperation, jacketView } from '../test/extension/ui/jacket-view.ts';
import { medianTime } from './median-time.ts';
import type { BenchResult } from './run.ts';


const ms = (t: number) => `${t.toFixed(1)} ms`;

export async function run(): Promise<BenchResult[]> {
  const { document } = new JSDOM('<!doctype html><body></body>').window;
  const t = translator(chromeGetMessage(englishMessages()), 'en');
  const args = Object.fromEntries(Array.from({ length: MAX_TOOL_ARGUMENTS }, (_, i) => [`path_${String(i).padStart(3, '0')}`, `/home/sam/${'projects/{client}/src/'.repeat(45)}${i}`.slice(0, 1000)]));
  const call: ToolCall = {
    call_id: 'call_1',
    server: { name: 'secure-filesystem-server', reached_by: { transport: 'stdio', command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '/home/sam'] } },
    tool: 'move_files',
    arguments: args,
    expires_at: '2099-10-08T19:20:00Z',
  };
  const req = await toolCallAsRequest({ id: 'req_1', nonce: `${'N'.repeat(42)}A`, tool_call: call });
  const toolView = jacketView({ url: 'https://unused.example', company: req.company, origin: null, operation: req.operation, request: req.request, session: req.session, toolCall: { server: call.server, tool: call.tool, arguments: call.arguments } });
  const words = 'Exchange the Stormline Jacket (M) for the Insulated Jacket (M), for **$70.00** more. ';
  const longView = jacketView({ operation: jacketOperation({ summary: words.repeat(Math.ceil(MAX_SUMMARY_LENGTH / words.length)).slice(0, MAX_SUMMARY_LENGTH) }) });

  const render = (view: typeof toolView) => () => document.body.replaceChildren(renderApprovalCard(document, view, t).card);
  const toolMs = medianTime(render(toolView), 9);
  const summaryMs = medianTime(render(longView), 9);

  const frame = JSON.stringify({ type: 'tool_call_request', v: 2, id: 't_1', nonce: `${'N'.repeat(42)}A`, tool_call: call });
  const intakeMs = medianTime(() => toolCallSchema.parse((JSON.parse(frame) as { tool_call: unknown }).tool_call), 15);
  const parseMs = medianTime(() => JSON.parse(frame), 15);

  return [
    {
      name: 'tool-call card, 256 arguments of 1,000 characters',
      baseline: `a ${MAX_SUMMARY_LENGTH}-character summary's card`,
      ratio: toolMs / summaryMs,
      detail: `${ms(toolMs)} vs ${ms(summaryMs)} (jsdom, median of 9)`,
      goal: '≤ 10x',
    },
    {
      name: 'intake check of that call (toolCallSchema and its limits)',
      baseline: 'JSON.parse of its frame',
      ratio: intakeMs / parseMs,
      detail: `${ms(intakeMs)} vs ${ms(parseMs)} (${frame.length} characters, median of 15)`,
    },
  ];
}

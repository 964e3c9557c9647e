import { describe, it, expect } from 'vitest';
import type { ApprovalView } from '../../../src/extension/snapshot';
import { assessRisk } from '../../../src/extension/ui/risk';
import { displayOrigin } from '../../../src/summary/origin.ts';
import { jacketOperation, jacketView, STORMLINE, T700 } from './jacket-view';

const severities = (url: string) => assessRisk(jacketView({ url }), false).items.filter((i) => i.source === 'origin').map((i) => i.severity);

describe('risk: assessRisk (docs/ui.md "Danger": danger changes the decision, warnings are listed, info is a note)', () => {
  it('the seed\'s jacket exchange with its request: nothing against it', () => {
    const risk = assessRisk(jacketView(), false);
    expect(risk).toMatchObject({ danger: false, originWarning: false, items: [] });
    expect(risk.checked.length).toBeGreaterThan(0);
  });

  it('a review finding of danger (terms charge $700, summary says $70) → danger, but not an origin warning', () => {
    const risk = assessRisk(jacketView({ operation: jacketOperation({ terms: T700 }) }), false);
    expect(risk.danger).toBe(true);
    expect(risk.originWarning).toBe(false);
    expect(risk.items.filter((i) => i.severity === 'danger').every((i) => i.source === 'review')).toBe(true);
    expect(risk.items.map((i) => i.text?.key)).toContain('review_amountNotInSummary');
  });

  it('hidden characters in the Company\'s name → danger from the name', () => {
    const risk = assessRisk(jacketView({ company: { name: 'Storm\u202Eline', origin: STORMLINE.origin } }), false);
    expect(risk.danger).toBe(true);
    expect(risk.originWarning).toBe(false);
    expect(risk.items[0]).toMatchObject({ severity: 'danger', source: 'name' });
  });

  it('hidden characters in the summary → a warning (hygieneWarning), not danger', () => {
    const risk = assessRisk(jacketView(), true);
    expect(risk.danger).toBe(false);
    expect(risk.items).toEqual([expect.objectContaining({ severity: 'warning', source: 'summary', text: { key: 'hygieneWarning', substitutions: [] } })]);
  });

  describe('the Company\'s address', () => {
    it('subdomain-spells-domain (stormline.example.checkout-secure.co) → danger, and the heading must lead with the domain', () => {
      const risk = assessRisk(jacketView({ url: 'https://stormline.example.checkout-secure.co' }), false);
      expect(risk.danger).toBe(true);
      expect(risk.originWarning).toBe(true);
      expect(risk.items[0]).toMatchObject({ severity: 'danger', source: 'origin', text: { key: 'origin_subdomainIsDomain', substitutions: ['checkout-secure.co', 'stormline.example'] } });
    });

    it('plain http over the network → danger and an origin warning', () => {
      expect(severities('http://stormline.example')).toEqual(['danger']);
      expect(assessRisk(jacketView({ url: 'http://stormline.example' }), false)).toMatchObject({ danger: true, originWarning: true });
    });

    it('plain http on this computer (localhost, 127.0.0.1, ::1) is info only: it never crosses a network', () => {
      for (const url of ['http://localhost:8080', 'http://127.0.0.1:3000', 'http://shop.localhost', 'http://[::1]:8080']) {
        const risk = assessRisk(jacketView({ url }), false);
        expect(severities(url), url).not.toHaveLength(0);
        expect(severities(url).every((s) => s === 'info'), url).toBe(true);
        expect(risk.danger, url).toBe(false);
        expect(risk.originWarning, url).toBe(false);
      }
    });

    it('a bare IP address on the network is a warning: worth a look, not danger', () => {
      expect(severities('https://192.168.1.10')).toEqual(['warning']);
      expect(assessRisk(jacketView({ url: 'https://192.168.1.10' }), false)).toMatchObject({ danger: false, originWarning: false });
    });

    it('a long subdomain elided for display is info', () => {
      const url = 'https://a-rather-long-subdomain.with-more-parts.stormline.example';
      expect(displayOrigin(url).warnings.map((w) => w.code)).toContain('subdomain-elided');
      expect(severities(url)).toEqual(['info']);
    });

    it('no display origin (the background could not parse it) → no address items', () => {
      expect(assessRisk(jacketView({ origin: null }), false).items).toEqual([]);
    });
  });

  it('sorted by weight: danger, then warning, then info', () => {
    const risk = assessRisk(jacketView({ url: 'http://localhost:8080', operation: jacketOperation({ terms: T700 }), request: null }), true);
    const order = risk.items.map((i) => i.severity);
    expect(order).toContain('danger');
    expect(order).toContain('warning');
    expect(order).toContain('info');
    expect(order).toEqual([...order].sort((a, b) => ['danger', 'warning', 'info'].indexOf(a) - ['danger', 'warning', 'info'].indexOf(b)));
  });

  it('reviews the summary against the request the agent sent (MCP arguments count as the request)', () => {
    const api = assessRisk(jacketView(), false);
    const none = assessRisk(jacketView({ request: null }), false);
    const mcp = assessRisk(jacketView({ request: { interface: 'mcp', tool: 'exchange', arguments: { order_id: 'ord_7Hk2', item_id: 'itm_4Qa', replacement_sku: 'stormline-insulated-m' } } }), false);
    expect(api.items).toEqual([]);
    expect(mcp.items).toEqual([]);
    expect(none.items.map((i) => i.text?.key)).toContain('review_requestAbsent');
  });

  describe('a coding agent\'s tool call, flagged by its hook (docs/coding-agents.md, "Findings")', () => {
    const server = { name: 'Claude Code', reached_by: { transport: 'stdio' as const, command: 'countersign-hook', args: ['--agent', 'claude-code'] } };
    const call = (args: NonNullable<ApprovalView['toolCall']>['arguments']) => jacketView({ url: 'https://unused.example', company: { name: 'Claude Code', origin: '' }, origin: null, toolCall: { server, tool: 'Bash', arguments: args } });

    it('each flag is a danger, in the window\'s words, with its text as data', () => {
      const risk = assessRisk(call({ command: 'sudo rm -rf /', countersign_findings: ['runs a command as root (sudo)', 'deletes files recursively without asking (rm -rf)'] }), false);
      expect(risk.danger).toBe(true);
      expect(risk.items.filter((i) => i.source === 'call').map((i) => i.text)).toEqual([
        { key: 'toolCallFlagged', substitutions: ['runs a command as root (sudo)'] },
        { key: 'toolCallFlagged', substitutions: ['deletes files recursively without asking (rm -rf)'] },
      ]);
    });

    it('a call without flags raises nothing, and what is not a list of text is no flag', () => {
      expect(assessRisk(call({ command: 'ls' }), false).danger).toBe(false);
      expect(assessRisk(call({ command: 'ls', countersign_findings: 'sudo' }), false).danger).toBe(false);
      expect(assessRisk(call({ command: 'ls', countersign_findings: [7, null, ''] }), false).danger).toBe(false);
    });

    it('hidden characters in a flag are shown as marks, and at most 12 flags become lines', () => {
      const risk = assessRisk(call({ countersign_findings: ['touches \u202Eelif', ...Array.from({ length: 20 }, (_, i) => `flag ${i}`)] }), false);
      const lines = risk.items.filter((i) => i.source === 'call');
      expect(lines).toHaveLength(12);
      expect(lines[0]?.text?.substitutions[0]).toBe('touches ⟨U+202E⟩elif');
    });

    it('an operation\'s terms named like the flags are no flags: only a tool call has them', () => {
      expect(assessRisk(jacketView({ operation: jacketOperation({ terms: { countersign_findings: ['sudo'] } }) }), false).items.some((i) => i.source === 'call')).toBe(false);
    });
  });
});

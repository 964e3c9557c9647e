import { createCompany, type Company } from '../../../src/company/index';

/**
 * A process that runs reference Companies for the chaos suite, so that their work (HTTP and MCP
 * servers) runs on another core than the agent's. Started by remote-company.ts; spoken to over
 * the IPC channel. Each Company is the real `createCompany` on 127.0.0.1 with a clock the parent
 * can move, and the parent sets its fault switches and reads `state.performed`.
 */

interface Hosted {
  company: Company;
  clock: { ms: number };
  errors: string[];
}

type Request =
  | { id: number; op: 'create' }
  | { id: number; op: 'faults'; url: string; faults: Record<string, number> }
  | { id: number; op: 'advance'; url: string; ms: number }
  | { id: number; op: 'close'; url: string };

const hosted = new Map<string, Hosted>();

async function handle(request: Request): Promise<unknown> {
  switch (request.op) {
    case 'create': {
      const clock = { ms: Date.now() };
      const errors: string[] = [];
      const company = await createCompany({ now: () => clock.ms, log: (line) => errors.push(line) });
      hosted.set(company.url, { company, clock, errors });
      return { url: company.url };
    }
    case 'faults': {
      const entry = hosted.get(request.url);
      if (entry === undefined) throw new Error(`no Company at ${request.url}`);
      Object.assign(entry.company.faults, request.faults);
      return null;
    }
    case 'advance': {
      const entry = hosted.get(request.url);
      if (entry === undefined) throw new Error(`no Company at ${request.url}`);
      entry.clock.ms += request.ms;
      return null;
    }
    case 'close': {
      const entry = hosted.get(request.url);
      if (entry === undefined) throw new Error(`no Company at ${request.url}`);
      hosted.delete(request.url);
      const performed = [...entry.company.state.performed];
      await entry.company.close();
      return { performed, errors: entry.errors };
    }
  }
}

process.on('message', (request: Request) => {
  handle(request).then(
    (result) => process.send?.({ id: request.id, result }),
    (error: unknown) => process.send?.({ id: request.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
process.send?.({ id: 0, result: 'ready' });

import { it } from 'vitest';
import { performApi } from '../../src/agent/index';
import { createCompany } from '../../src/company/index';
import { Person, startAgents } from './support/person';
import { ALEX, EXCHANGE_M, SIGNED_IN } from './support/reference';

it('prof', { timeout: 60000 }, async () => {
  for (const bridge of [false]) {
    const agents = await startAgents({ bridge, memoryDisk: true });
    const person = new Person(agents.ext, () => 'approve', 1);
    const companion = await agents.paired({ ackWindowMs: 2 });
    for (let i = 0; i < 6; i++) {
      const company = await createCompany();
      const t0 = performance.now();
      const steps: string[] = [];
      await performApi({ companion, company: { origin: company.url }, session: SIGNED_IN, headers: ALEX, request: { method: 'POST', url: `${company.url}/orders/ord_7Hk2/exchanges`, body: EXCHANGE_M }, onProgress: (e) => steps.push(`${e.step}${e.state ? ':' + e.state : ''}@${Math.round(performance.now() - t0)}`) });
      console.log(bridge, Math.round(performance.now() - t0), steps.join(' '));
      await company.close();
    }
    await person.stop();
    await agents.dispose();
  }
});

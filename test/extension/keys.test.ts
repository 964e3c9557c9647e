import 'fake-indexeddb/auto';
import { describe, it, expect } from 'vitest';
import { Store, approvalKey, type ApprovalRecord } from '../../src/extension/store';
import { extensionKey, signRecord } from '../../src/extension/keys';
import { verifyDecision, publicJwkThumbprint } from '../../src/protocol/decision';

let n = 0;

async function record(): Promise<ApprovalRecord> {
  const agentJwk = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };
  const agent = await publicJwkThumbprint(agentJwk);
  const operation = {
    operation_id: 'exc_5Rt2',
    revision: '1791487200-k3Jd9Qx2mW8v',
    summary: 'Exchange the Stormline Jacket (M) for $70.00 more.',
    terms: { order_id: 'ord_7Hk2', price_difference: { amount: '70.00', currency: 'USD' } },
    expires_at: '2099-10-08T12:20:00-07:00',
  };
  return {
    key: approvalKey(agent, 'https://stormline.example', operation.operation_id, operation.revision),
    agent,
    agentName: 'Desk agent',
    operationId: operation.operation_id,
    revision: operation.revision,
    requestId: 'r1',
    conn: 'c1',
    nonce: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    company: { name: 'Stormline', origin: 'https://stormline.example' },
    operation,
    request: { interface: 'conversation', conversation_id: 'conv_1' },
    session: { kind: 'this_session' },
    state: 'pending',
    createdAt: 0,
    updatedAt: 0,
    agentConnected: true,
  };
}

describe('extension key and decision signing (docs/bridge-protocol.md, "Pairing and keys")', () => {
  it('creates one non-extractable key and keeps it across reopen', async () => {
    const name = `keys-${++n}`;
    const a = await Store.open(name);
    const first = await extensionKey(a);
    expect(first.privateKey.extractable).toBe(false);
    a.close();
    const b = await Store.open(name);
    expect((await extensionKey(b)).thumbprint).toBe(first.thumbprint);
    b.close();
  });

  it('signs a decision the agent SDK verifies against the pinned key', async () => {
    const store = await Store.open(`keys-${++n}`);
    const rec = await record();
    const key = await extensionKey(store);
    const jws = await signRecord(key, rec, 'approved');
    const claims = await verifyDecision(jws, {
      pinnedKey: key.publicJwk,
      expected: { operation: rec.operation, company: rec.company, audience: rec.agent, nonce: rec.nonce },
    });
    expect(claims).toMatchObject({ status: 'approved', operation_id: 'exc_5Rt2', aud: rec.agent });
    store.close();
  });
});

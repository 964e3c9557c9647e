import { approvalKey, type ApprovalRecord } from '../../src/extension/store';

/**
 * One waiting approval as the store keeps it (src/extension/store.ts), the jacket exchange of
 * agent A unless `overrides` say otherwise. Shared by the store's tests and its benchmark.
 */
export function approvalRecord(overrides: Partial<ApprovalRecord> = {}): ApprovalRecord {
  const operation = {
    operation_id: 'exc_5Rt2',
    revision: '1791487200-k3Jd9Qx2mW8v',
    summary: 'Exchange the jacket for $70.00 more.',
    expires_at: '2026-10-08T12:20:00-07:00',
  };
  return {
    key: approvalKey('agentA', 'https://stormline.example', operation.operation_id, operation.revision),
    agent: 'agentA',
    agentName: 'Desk agent',
    operationId: operation.operation_id,
    revision: operation.revision,
    requestId: 'req1',
    conn: 'c1',
    nonce: 'n1',
    company: { name: 'Stormline', origin: 'https://stormline.example' },
    operation,
    request: { interface: 'api', method: 'POST', url: 'https://api.example.com/orders/ord_7Hk2/exchanges' },
    session: { kind: 'this_session' },
    state: 'pending',
    createdAt: 1,
    updatedAt: 1,
    agentConnected: true,
    ...overrides,
  };
}

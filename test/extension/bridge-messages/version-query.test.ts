import { describe, expect, it } from 'vitest';
import { versionQuery } from '../../../src/extension/bridge-messages/version-query';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../../src/protocol/bridge';
import { fakeSession, parsed } from './fake-session';

describe('version_query (docs/bridge-protocol.md, section 7)', () => {
  it('is answered before any handshake with the product, the extension version and the protocol versions', async () => {
    const fake = await fakeSession('version');
    const c = { conn: 'c1', stage: 'new' as const };
    await versionQuery(c, parsed({ type: 'version_query', v: 2, id: 'q_1' }), fake.session);
    expect(fake.sent).toEqual([
      { conn: 'c1', message: { type: 'version', v: 2, id: 'q_1', product: 'Countersign', extension_version: '9.9.9', protocol_versions: [...SUPPORTED_PROTOCOL_VERSIONS] } },
    ]);
    expect(c.stage).toBe('new');
  });
});

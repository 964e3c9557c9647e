import { BRIDGE_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '../../protocol/bridge';
import type { BridgeMessageHandler } from './types';

/** `version_query` (docs/bridge-protocol.md, section 7, "version_query / version"): answered before any handshake, to anyone. */
export const versionQuery: BridgeMessageHandler<'version_query'> = (c, m, session) => {
  session.send(c.conn, {
    type: 'version',
    v: BRIDGE_PROTOCOL_VERSION,
    id: m.id,
    product: 'Countersign',
    extension_version: session.extensionVersion,
    protocol_versions: [...SUPPORTED_PROTOCOL_VERSIONS],
  });
};

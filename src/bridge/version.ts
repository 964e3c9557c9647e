import { PACKAGE_VERSION } from '../protocol/package-version';

/** The bridge's own version, reported in `bridge_ready` and `bridge_info`: the package's. */
export const BRIDGE_VERSION: string = PACKAGE_VERSION;

import { openNativePort, type NativeMessagingPort, type OpenedPort } from './held-port';

/*
 * A cold worker waits for the bridge, a new process that takes longer to start than anything
 * else the worker does (docs/ui.md, "Opening fast"). The worker's own code takes about 20 ms to
 * evaluate before it could open the port, so the port is opened here, as this module is
 * evaluated: the background entry imports it before anything else. Its events wait until the
 * NativePort that takes it listens.
 */
let early: OpenedPort<NativeMessagingPort> | undefined = openNativePort();

/** The port opened as the worker started, once; undefined after. */
export function takeEarlyNativePort(): OpenedPort<NativeMessagingPort> | undefined {
  const taken = early;
  early = undefined;
  return taken;
}

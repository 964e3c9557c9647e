/**
 * The native-messaging host name, in one place for the host manifests and `connectNative`. A
 * module of its own, with nothing else in it: the extension's worker opens its port to the bridge
 * before it evaluates anything else (src/extension/early-native-port.ts).
 */
export const NATIVE_HOST_NAME = 'dev.countersign.bridge';

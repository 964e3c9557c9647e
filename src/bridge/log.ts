/**
 * Diagnostics of the bridge. They go to stderr and nowhere else: stdout is the native-messaging
 * stream, and one stray byte there corrupts it (Chromium closes the port). Chromium discards the
 * host's stderr unless started with logging; Firefox shows it in the browser console, so the
 * default level is quiet.
 */
export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

const ORDER: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}

/** A level from COUNTERSIGN_BRIDGE_LOG; anything unknown means the default, "warn". */
export function logLevelFrom(value: string | undefined): LogLevel {
  return value === 'error' || value === 'warn' || value === 'info' || value === 'debug' ? value : 'warn';
}

export function createLogger(write: (line: string) => void, level: LogLevel): Logger {
  const at = (l: LogLevel) => (message: string) => {
    if (ORDER[l] <= ORDER[level]) write(`countersign-bridge ${l}: ${message}\n`);
  };
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };

import { MAX_AGENT_CONNECTIONS } from '../protocol/bridge';
import { MAX_FRAME_BYTES } from '../protocol/bridge-framing';
import type { Logger } from './log';

/**
 * Connection hygiene: which agent connections the bridge keeps, and for how long
 * (docs/bridge-protocol.md section 5, "Limits and deadlines").
 *
 * Any process that can open the socket gets a connection (section 3), and opening one proves
 * nothing. Without limits, a process that opens 64 connections and never speaks would hold every
 * slot and lock the paired agents out. So a connection is *untrusted* until the extension says
 * otherwise through the relay, and untrusted connections share a few slots for a short time:
 *
 * - trusted: the extension relayed `welcome` with `paired: true` (the agent proved a paired key,
 *   section 7) or `pair_result` `confirmed` (the person just paired it, section 8). Trust lasts
 *   until the connection closes: only the extension can grant it, and what an agent may do on it is
 *   still checked by the extension for every message.
 * - pairing: untrusted, but the extension relayed `pair_offer`: a person has to read a code and type
 *   it, which takes minutes, not seconds. It ends with `pair_result` or an `error`
 *   `ERR_PAIRING_FAILED`, and is never a way to hold a slot without a pairing the person can see.
 * - untrusted: everything else, including `welcome` with `paired: false` (any key authenticates).
 *
 * This module decides; host.ts acts (writes the error frames, closes sockets, runs the one timer).
 * It reads the clock only through the `now` arguments, so tests drive it with plain numbers.
 */

export interface HygieneLimits {
  /** Agent connections at once, trusted or not. */
  maxConnections: number;
  /** Untrusted connections (pairing ones included) at once: the rest of maxConnections is left to trusted ones. */
  maxUntrusted: number;
  /** Pairing connections at once; a pair_offer beyond this gives no extra time. */
  maxPairing: number;
  /** From connecting (or from the end of a pairing) to becoming trusted. */
  authDeadlineMs: number;
  /** From the pair_offer to becoming trusted. */
  pairingDeadlineMs: number;
  /** When no slot is free, an untrusted (not pairing) connection open at least this long makes room for a new one. */
  displaceAfterMs: number;
  /** The largest message (bytes of its frame's payload) an untrusted connection may send; a larger one closes it. */
  untrustedMessageBytes: number;
  /** Messages one connection may have relayed before it is trusted. */
  untrustedFrames: number;
  /** Bytes one connection may have relayed before it is trusted. */
  untrustedBytes: number;
  /** Messages per second relayed for all untrusted connections together (twice this at once). */
  untrustedFramesPerSecond: number;
  /** Bytes per second relayed for all untrusted connections together (twice this at once). */
  untrustedBytesPerSecond: number;
}

/** The limits, in one place. docs/bridge-protocol.md section 5 states each value; hygiene.test.ts checks that it does. */
export const HYGIENE_LIMITS: Readonly<HygieneLimits> = Object.freeze({
  maxConnections: MAX_AGENT_CONNECTIONS,
  // 8 of 64: a burst of agents starting together fits, and at least 56 slots stay for trusted ones.
  maxUntrusted: 8,
  // The extension lets 3 pairings wait for the person at once (section 8); more pairing
  // connections than that can only be left over from pairings that ended unseen.
  maxPairing: 3,
  // A handshake is four messages and one signature check: well under a second on a live bridge.
  authDeadlineMs: 10_000,
  // Long enough to find the Countersign window, read a 6-digit code and type it.
  pairingDeadlineMs: 5 * 60_000,
  // Longer than a handshake takes, so a connection that is handshaking is never the one closed,
  // and short enough that connections held open without speaking free their slots quickly.
  displaceAfterMs: 2_000,
  // Before trust a connection can say only hello, auth, version_query and the pairing messages:
  // each well under 1 KiB with the longest name and key, so 4 KiB leaves room for unknown members.
  untrustedMessageBytes: 4096,
  // A handshake and a pairing are five messages; a few retries (another hello after a failed
  // auth, a version_query) fit, a flood does not.
  untrustedFrames: 16,
  untrustedBytes: 16 * 1024,
  // Eight agents starting together (16 messages) pass at once; a flood reaches the extension at a
  // rate its worker handles between a paired agent's messages.
  untrustedFramesPerSecond: 32,
  untrustedBytesPerSecond: 32 * 1024,
});

export type Trust = 'untrusted' | 'pairing' | 'trusted';

/** The members of a message relayed to an agent that trust depends on (it was validated before it gets here). */
export interface RelayedMessage {
  type: string;
  paired?: unknown;
  status?: unknown;
  code?: unknown;
}

export type Admission = { admit: true; displace?: string } | { admit: false; why: string };

/**
 * Whether an agent's message may be relayed, and if not, the error its sender gets (none for an
 * `error`: an error is never answered with an error, section 5).
 */
export type RelayVerdict = { relay: true } | { relay: false; code?: 'ERR_AUTH_FAILED' | 'ERR_THROTTLED'; why: string };

/** The messages a connection may send before the extension has answered its `auth` (sections 7 and 8). */
const BEFORE_WELCOME = new Set(['hello', 'auth', 'version_query']);

interface Entry {
  trust: Trust;
  /** When it connected, or when its pairing ended: the oldest untrusted one makes room first. */
  since: number;
  /** When it is closed unless trusted by then; undefined once trusted. */
  deadline: number | undefined;
  /** The extension sent it `welcome` (paired or not): it proved a key, so it may ask to pair. */
  welcomed: boolean;
  /** Messages and bytes relayed while untrusted. */
  frames: number;
  bytes: number;
}

/** A budget that refills at `perSecond` up to twice that: what all untrusted connections share. */
class Bucket {
  private level: number;
  private at: number | undefined;
  constructor(private readonly perSecond: number) {
    this.level = 2 * perSecond;
  }

  take(amount: number, now: number): boolean {
    const capacity = 2 * this.perSecond;
    if (this.at !== undefined) this.level = Math.min(capacity, this.level + ((now - this.at) * this.perSecond) / 1000);
    this.at = now;
    if (amount > this.level) return false;
    this.level -= amount;
    return true;
  }

  /** Give back what `take` took, when another budget refused the message after all. */
  refund(amount: number): void {
    this.level = Math.min(2 * this.perSecond, this.level + amount);
  }
}

export class ConnectionHygiene {
  readonly limits: Readonly<HygieneLimits>;
  private readonly entries = new Map<string, Entry>();
  private readonly sharedFrames: Bucket;
  private readonly sharedBytes: Bucket;

  constructor(limits: Partial<HygieneLimits> = {}) {
    this.limits = normalize({ ...HYGIENE_LIMITS, ...limits });
    this.sharedFrames = new Bucket(this.limits.untrustedFramesPerSecond);
    this.sharedBytes = new Bucket(this.limits.untrustedBytesPerSecond);
  }

  /** Connections counted: all, or those with one trust. */
  count(trust?: Trust | 'not-trusted'): number {
    if (trust === undefined) return this.entries.size;
    let n = 0;
    for (const e of this.entries.values()) if (e.trust === trust || (trust === 'not-trusted' && e.trust !== 'trusted')) n++;
    return n;
  }

  trustOf(conn: string): Trust | undefined {
    return this.entries.get(conn)?.trust;
  }

  /**
   * Whether a new connection may come in at `now`. It starts untrusted, so it needs both a free
   * slot and a free untrusted slot. When either is missing, the untrusted (not pairing) connection
   * that has waited longest makes room, if it has waited at least displaceAfterMs: a process that
   * holds connections open without authenticating then delays others by seconds, not for as long
   * as it likes. Otherwise the new connection is refused (ERR_THROTTLED).
   */
  admission(now: number): Admission {
    const { maxConnections, maxUntrusted, displaceAfterMs } = this.limits;
    const untrusted = this.count('not-trusted');
    if (this.entries.size < maxConnections && untrusted < maxUntrusted) return { admit: true };
    let oldest: [string, Entry] | undefined;
    for (const item of this.entries) {
      const e = item[1];
      if (e.trust !== 'untrusted' || now - e.since < displaceAfterMs) continue;
      if (oldest === undefined || e.since < oldest[1].since) oldest = item;
    }
    if (oldest !== undefined) return { admit: true, displace: oldest[0] };
    return {
      admit: false,
      why:
        untrusted >= maxUntrusted
          ? `${untrusted} connections are not authenticated yet (at most ${maxUntrusted} at once); try again in a few seconds`
          : `${this.entries.size} agents are connected (at most ${maxConnections} at once)`,
    };
  }

  add(conn: string, now: number): void {
    this.entries.set(conn, { trust: 'untrusted', since: now, deadline: now + this.limits.authDeadlineMs, welcomed: false, frames: 0, bytes: 0 });
  }

  /**
   * Whether a message of `type` and `bytes` from `conn` may be relayed at `now`, counted against
   * its budgets when it may (docs/bridge-protocol.md section 5, "Before trust"). A trusted
   * connection's messages always may; an unknown connection's never. Before the extension's
   * `welcome`, only the handshake is relayed: anything else would be answered ERR_AUTH_FAILED by
   * the extension anyway, after it had spent its time reading it. An untrusted connection's
   * `error` is never relayed: the extension records every one it gets. Message size is the
   * frame decoder's business (untrustedMessageBytes): this is called with what was read.
   */
  mayRelay(conn: string, type: unknown, bytes: number, now: number): RelayVerdict {
    const e = this.entries.get(conn);
    if (e === undefined) return { relay: false, code: 'ERR_THROTTLED', why: 'this connection is being closed' };
    if (e.trust === 'trusted') return { relay: true };
    if (type === 'error') return { relay: false, why: 'an error from a connection that is not trusted is not relayed' };
    if (!e.welcomed && (typeof type !== 'string' || !BEFORE_WELCOME.has(type))) {
      return { relay: false, code: 'ERR_AUTH_FAILED', why: 'authenticate first (hello, then auth): before welcome only hello, auth and version_query are relayed (docs/bridge-protocol.md section 5)' };
    }
    const { untrustedFrames, untrustedBytes } = this.limits;
    if (e.frames + 1 > untrustedFrames || e.bytes + bytes > untrustedBytes) {
      return { relay: false, code: 'ERR_THROTTLED', why: `this connection is not trusted yet and has sent its ${untrustedFrames} messages (${untrustedBytes} bytes) allowed before trust (docs/bridge-protocol.md section 5)` };
    }
    if (!this.sharedFrames.take(1, now)) return this.busy();
    if (!this.sharedBytes.take(bytes, now)) {
      this.sharedFrames.refund(1);
      return this.busy();
    }
    e.frames += 1;
    e.bytes += bytes;
    return { relay: true };
  }

  private busy(): RelayVerdict {
    const { untrustedFramesPerSecond, untrustedBytesPerSecond } = this.limits;
    return {
      relay: false,
      code: 'ERR_THROTTLED',
      why: `connections that are not trusted yet are sending more than ${untrustedFramesPerSecond} messages or ${untrustedBytesPerSecond} bytes a second together; try again in a second (docs/bridge-protocol.md section 5)`,
    };
  }

  remove(conn: string): void {
    this.entries.delete(conn);
  }

  /**
   * The extension relayed `message` to `conn` at `now`. Returns the connection's new trust when it
   * changed. Only the extension's messages are read: an agent cannot make itself trusted.
   */
  observe(conn: string, message: RelayedMessage, now: number): Trust | undefined {
    const e = this.entries.get(conn);
    if (e === undefined || e.trust === 'trusted') return undefined;
    const trust = (): Trust => {
      e.trust = 'trusted';
      e.deadline = undefined;
      return e.trust;
    };
    // A pairing that is over (refused, wrong code, bad reveal) gives back the short deadline, from
    // now: the agent may read why, and may ask to pair again.
    const endPairing = (): Trust | undefined => {
      if (e.trust !== 'pairing') return undefined;
      e.trust = 'untrusted';
      e.since = now;
      e.deadline = now + this.limits.authDeadlineMs;
      return e.trust;
    };
    switch (message.type) {
      case 'welcome':
        e.welcomed = true;
        return message.paired === true ? trust() : undefined;
      case 'pair_result':
        return message.status === 'confirmed' ? trust() : endPairing();
      case 'pair_offer':
        if (e.trust !== 'untrusted' || this.count('pairing') >= this.limits.maxPairing) return undefined;
        e.trust = 'pairing';
        e.deadline = now + this.limits.pairingDeadlineMs;
        return e.trust;
      case 'error':
        return message.code === 'ERR_PAIRING_FAILED' ? endPairing() : undefined;
      default:
        return undefined;
    }
  }

  /** Connections whose deadline has passed at `now`, with the trust they had (it names the error). */
  expired(now: number): Array<{ conn: string; trust: Trust }> {
    const out: Array<{ conn: string; trust: Trust }> = [];
    for (const [conn, e] of this.entries) if (e.deadline !== undefined && e.deadline <= now) out.push({ conn, trust: e.trust });
    return out;
  }

  /** The earliest deadline, for the host's one timer. */
  nextDeadline(): number | undefined {
    let next: number | undefined;
    for (const e of this.entries.values()) if (e.deadline !== undefined && (next === undefined || e.deadline < next)) next = e.deadline;
    return next;
  }
}

/** Whole numbers of at least 1, and the smaller limits within the larger ones. */
function normalize(limits: HygieneLimits): HygieneLimits {
  const whole = (n: number) => Math.max(1, Math.floor(n));
  const maxConnections = whole(limits.maxConnections);
  const maxUntrusted = Math.min(whole(limits.maxUntrusted), maxConnections);
  return {
    maxConnections,
    maxUntrusted,
    maxPairing: Math.min(whole(limits.maxPairing), maxUntrusted),
    authDeadlineMs: whole(limits.authDeadlineMs),
    pairingDeadlineMs: whole(limits.pairingDeadlineMs),
    displaceAfterMs: whole(limits.displaceAfterMs),
    untrustedMessageBytes: Math.min(whole(limits.untrustedMessageBytes), MAX_FRAME_BYTES),
    untrustedFrames: whole(limits.untrustedFrames),
    untrustedBytes: whole(limits.untrustedBytes),
    untrustedFramesPerSecond: whole(limits.untrustedFramesPerSecond),
    untrustedBytesPerSecond: whole(limits.untrustedBytesPerSecond),
  };
}

const ENV_NAMES: Record<string, keyof HygieneLimits> = {
  connections: 'maxConnections',
  untrusted: 'maxUntrusted',
  pairings: 'maxPairing',
  auth_ms: 'authDeadlineMs',
  pairing_ms: 'pairingDeadlineMs',
  displace_ms: 'displaceAfterMs',
  message_bytes: 'untrustedMessageBytes',
  frames: 'untrustedFrames',
  bytes: 'untrustedBytes',
  frames_per_s: 'untrustedFramesPerSecond',
  bytes_per_s: 'untrustedBytesPerSecond',
};

/**
 * Limits from COUNTERSIGN_BRIDGE_LIMITS (`untrusted=2,auth_ms=500,...`), for tests of the real
 * process and of agents. A value may only be *lower* than the default: every lower value is
 * stricter toward untrusted connections, so the variable can shorten a test but never loosen the
 * bridge. Anything else is ignored with a warning.
 */
export function hygieneLimitsFromEnv(text: string | undefined, log: Logger): Partial<HygieneLimits> {
  const out: Partial<HygieneLimits> = {};
  if (text === undefined || text.trim() === '') return out;
  for (const part of text.split(',')) {
    const [name = '', value = ''] = part.split('=', 2).map((s) => s.trim());
    const key = ENV_NAMES[name];
    const n = /^[0-9]{1,9}$/.test(value) ? Number(value) : NaN;
    if (key === undefined || !(n >= 1)) {
      log.warn(`COUNTERSIGN_BRIDGE_LIMITS: ignoring "${part.trim().slice(0, 80)}" (expected ${Object.keys(ENV_NAMES).join('|')}=<whole number of at least 1>)`);
      continue;
    }
    if (n > HYGIENE_LIMITS[key]) {
      log.warn(`COUNTERSIGN_BRIDGE_LIMITS: ${name} may only be lowered (at most ${HYGIENE_LIMITS[key]}); ignoring ${n}`);
      continue;
    }
    out[key] = n;
  }
  return out;
}

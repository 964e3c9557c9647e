// Longer than 500 lines on purpose: one database, one schema and its upgrades, and every transaction
// that must read and write together (intake's batch, a transition with its audit line) in one place.
import type { PasskeyCredential } from '../protocol/passkey';
import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction } from 'idb';
import type * as z from 'zod';
import type { requestContextSchema, sessionSchema } from '../protocol/bridge';
import { CountersignError } from '../protocol/errors';
import type { ToolCall } from '../protocol/tool-call';
import { nextState, type ApprovalEvent, type ApprovalState } from './approval-state';

/**
 * Everything the extension knows lives here, in IndexedDB, so a service-worker stop or a
 * browser restart loses nothing and duplicates nothing. Each change of an approval
 * and its audit line are written in one transaction.
 */

export interface CompanyRef {
  name: string;
  origin: string;
}

/** The request that returned the operation, as the bridge validated it (`approval_request.request`). */
export type RequestContext = z.infer<typeof requestContextSchema>;
/** The Session the operation was returned in, as the bridge validated it (`approval_request.session`). */
export type SessionContext = z.infer<typeof sessionSchema>;

export interface ApprovalRecord {
  /**
   * `${agent} ${company origin} ${operation_id} ${revision}` (approvalKey): one revision of one
   * Company's operation, asked by one agent. The origin is part of it because operation IDs are
   * the Company's own (spec section 3): two Companies may use the same one.
   */
  key: string;
  agent: string;
  agentName: string;
  operationId: string;
  revision: string;
  /** The agent's request id and connection, to route the decision back. */
  requestId: string;
  conn: string | null;
  nonce: string;
  company: CompanyRef;
  operation: {
    operation_id: string;
    revision: string;
    summary: string;
    terms?: Record<string, unknown> | undefined;
    expires_at: string;
  };
  /**
   * Set for a tool call from countersign-mcp (protocol/tool-call.ts): `company` is then the MCP
   * server's name with an empty origin, and `operation` was written by Countersign from the call
   * (toolCallSummary), never by the asking side. Decisions about it are tool-call decisions.
   */
  toolCall?: ToolCall;
  /** Stored as validated; readers still check each member, as a record from an older version may lack one. */
  request: RequestContext;
  session: SessionContext;
  state: ApprovalState;
  createdAt: number;
  updatedAt: number;
  /** The signed decision (compact JWS), once decided. */
  decision?: string;
  /** The revision this one replaced, for "what changed" (section 3 "New terms"). */
  previousKey?: string;
  heldReason?: string;
  agentConnected: boolean;
  outcomeDetail?: string;
  /** "required": Approve needs the person's passkey too (the agent asked, or the person requires it for this agent). */
  userVerification?: 'required';
}

export interface PairedAgent {
  thumbprint: string;
  name: string;
  publicJwk: JsonWebKey;
  pairedAt: number;
  revokedAt?: number;
  /** The person requires their passkey for every approval this agent asks for (docs/bridge-protocol.md, "Passkey-verified decisions"). */
  requireUserVerification?: boolean;
  /**
   * When the person last turned that requirement on or off: the agent's passkey announcements
   * carry it as `iat` when it is newer than the passkey's own change, and a change's passkey
   * challenge names it, so an assertion for one change cannot be replayed after the next.
   */
  userVerificationChangedAt?: number;
}

/**
 * The person's passkey for approvals, or its removal (`credential: null`), and when that changed:
 * the `iat` of every announcement of it, so an agent sees the same announcement until it changes.
 */
export interface StoredPasskey {
  name: 'passkey';
  credential: PasskeyCredential | null;
  changedAt: number;
  /** The authenticator's signature counter at the last assertion the background verified (0: none yet, or it keeps none). */
  signCount?: number;
}

export interface AuditEntry {
  id?: number;
  at: number;
  kind: string;
  key?: string;
  agent?: string;
  from?: ApprovalState;
  to?: ApprovalState;
  detail?: string;
}

export interface StoredKeyPair {
  name: 'extension';
  alg: 'EdDSA' | 'ES256';
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JsonWebKey;
  thumbprint: string;
  createdAt: number;
}

/** What a state-machine event may change besides the state. */
export type ApprovalPatch = Partial<Omit<ApprovalRecord, 'key' | 'state'>>;

/** Fields outside the state machine: which connection waits on an approval, and what the agent said last. */
export type PresencePatch = Partial<Pick<ApprovalRecord, 'conn' | 'agentConnected' | 'outcomeDetail'>>;

/** One state-machine event for Store.transitionAll. */
export interface Transition {
  key: string;
  event: ApprovalEvent;
  patch?: ApprovalPatch;
  detail?: string;
}

/** What became of one Transition: the record as written, or why it was not changed. */
export type TransitionResult = { key: string; record: ApprovalRecord } | { key: string; error: Error };

/** What one ask of an intake reads: the revision it names and that revision's operation (approvalKey's parts). */
export interface AskLook {
  key: string;
  agent: string;
  origin: string;
  operationId: string;
}

/**
 * The approvals as one intake transaction (Store.intake) sees them: every read includes the
 * writes made before it through this view. It answers only for what the looks named: their keys,
 * their operations' revisions, their agents' counts.
 */
export interface IntakeView {
  get(key: string): ApprovalRecord | undefined;
  /** Every revision of one Company's operation asked by one agent. */
  byOperation(agent: string, origin: string, operationId: string): ApprovalRecord[];
  /** How many approvals `agent` has pending. */
  waiting(agent: string): number;
  /** Adds a new revision, with its audit line; throws when the key is stored already. */
  insert(record: ApprovalRecord, audit: Omit<AuditEntry, 'at'>): void;
  /** One state-machine event and its audit line, as Store.transition; throws, writing nothing, when it is not allowed. */
  transition(key: string, event: ApprovalEvent, patch?: ApprovalPatch, detail?: string): ApprovalRecord;
  /** As Store.reattach. */
  reattach(key: string, link: Link): ApprovalRecord;
  audit(kind: string, entry?: Omit<AuditEntry, 'at' | 'kind'>): void;
}

/** Where the answer to an approval goes: the agent's request asking for it now. */
export type Link = Pick<ApprovalRecord, 'conn' | 'requestId' | 'nonce'>;

interface CountersignDB extends DBSchema {
  approvals: {
    key: string;
    value: ApprovalRecord;
    indexes: {
      'by-state': ApprovalState;
      /** [agent, company origin, operation_id]: the revisions of one action (supersede, hold). */
      'by-operation': [string, string, string];
      /** [agent, operation_id, revision]: what an agent's `approval_sent` and `outcome` name. */
      'by-revision': [string, string, string];
      'by-updated': number;
      /** [agent, state]: how many approvals one agent has waiting, counted without reading them. */
      'by-agent-state': [string, ApprovalState];
    };
  };
  agents: { key: string; value: PairedAgent };
  keys: { key: string; value: StoredKeyPair | StoredPasskey };
  audit: { key: number; value: AuditEntry };
}

export const DB_NAME = 'countersign';

/** Neither a thumbprint, a serialized origin nor an ID (id.ts) has a space: the join is unambiguous. */
export function approvalKey(agent: string, origin: string, operationId: string, revision: string): string {
  return `${agent} ${origin} ${operationId} ${revision}`;
}

/**
 * Version 1 keyed approvals by agent, operation and revision only; version 2 adds the origin;
 * version 3 the [agent, state] index, so an insert's throttle check costs the same however many
 * approvals wait.
 */
const DB_VERSION = 3;

export class Store {
  private readonly agentCache = new Map<string, Promise<PairedAgent | undefined>>();

  private constructor(private readonly db: IDBPDatabase<CountersignDB>) {}

  static async open(name = DB_NAME): Promise<Store> {
    const db = await openDB<CountersignDB>(name, DB_VERSION, {
      // The migration awaits requests of the upgrade transaction itself, which stays open while
      // they are pending; idb does not await the callback, and nothing else runs until it is done.
      // eslint-disable-next-line @typescript-eslint/no-misused-promises
      async upgrade(db, oldVersion, _newVersion, tx) {
        if (oldVersion < 1) {
          const approvals = db.createObjectStore('approvals', { keyPath: 'key' });
          approvals.createIndex('by-state', 'state');
          approvals.createIndex('by-updated', 'updatedAt');
          db.createObjectStore('agents', { keyPath: 'thumbprint' });
          db.createObjectStore('keys', { keyPath: 'name' });
          db.createObjectStore('audit', { keyPath: 'id', autoIncrement: true });
        }
        if (oldVersion < 2) {
          const approvals = tx.objectStore('approvals');
          // idb's typed schema only knows the current indexes; version 1 had a two-part one.
          if (oldVersion >= 1) (approvals as unknown as { deleteIndex(name: string): void }).deleteIndex('by-operation');
          approvals.createIndex('by-operation', ['agent', 'company.origin', 'operationId']);
          approvals.createIndex('by-revision', ['agent', 'operationId', 'revision']);
          if (oldVersion >= 1) await rekeyVersion1(approvals);
        }
        if (oldVersion < 3) tx.objectStore('approvals').createIndex('by-agent-state', ['agent', 'state']);
      },
    });
    return new Store(db);
  }

  close(): void {
    this.db.close();
  }

  get(key: string): Promise<ApprovalRecord | undefined> {
    return this.db.get('approvals', key);
  }

  byState(state: ApprovalState): Promise<ApprovalRecord[]> {
    return this.db.getAllFromIndex('approvals', 'by-state', state);
  }

  /** How many records are in `state`, counted through the state index without reading them. */
  countInState(state: ApprovalState): Promise<number> {
    return this.db.countFromIndex('approvals', 'by-state', state);
  }

  /** Every revision of one Company's operation asked by one agent. */
  byOperation(agent: string, origin: string, operationId: string): Promise<ApprovalRecord[]> {
    return this.db.getAllFromIndex('approvals', 'by-operation', [agent, origin, operationId]);
  }

  /** The records one agent has for an operation ID and revision, whichever Company's (usually one). */
  byRevision(agent: string, operationId: string, revision: string): Promise<ApprovalRecord[]> {
    return this.db.getAllFromIndex('approvals', 'by-revision', [agent, operationId, revision]);
  }

  all(): Promise<ApprovalRecord[]> {
    return this.db.getAll('approvals');
  }

  /**
   * Records in any of `states`, through the state index (never a scan of the whole history), in
   * one transaction: every snapshot of the pages reads the five open states.
   */
  async inStates(states: readonly ApprovalState[]): Promise<ApprovalRecord[]> {
    const index = this.db.transaction('approvals').store.index('by-state');
    const lists = await Promise.all(states.map((s) => index.getAll(s)));
    return lists.flat();
  }

  /**
   * The newest records first, skipping those `skip` rejects, until `limit` are found: reads only
   * as far back as needed, so a popup over 100,000 records costs what it costs over 100.
   */
  async newest(limit: number, keep: (r: ApprovalRecord) => boolean = () => true): Promise<ApprovalRecord[]> {
    const out: ApprovalRecord[] = [];
    let cursor = await this.db.transaction('approvals').store.index('by-updated').openCursor(null, 'prev');
    while (cursor && out.length < limit) {
      if (keep(cursor.value)) out.push(cursor.value);
      cursor = await cursor.continue();
    }
    return out;
  }

  /**
   * Open records still tied to an agent connection, or still shown as connected. Connection ids
   * are only meaningful to the bridge that gave them, so these are what a disconnect must clear.
   */
  async withConnection(): Promise<ApprovalRecord[]> {
    return (await this.inStates(['pending', 'held', 'approved', 'sent', 'unknown'])).filter((r) => r.conn !== null || r.agentConnected);
  }

  /** Adds a new revision; refuses to overwrite one that exists (idempotent re-asks are the caller's). */
  async insert(record: ApprovalRecord, audit: Omit<AuditEntry, 'at'>): Promise<void> {
    const tx = this.db.transaction(['approvals', 'audit'], 'readwrite');
    await Promise.all([
      tx.objectStore('approvals').add(record),
      tx.objectStore('audit').add({ ...audit, at: Date.now() }),
      tx.done,
    ]);
  }

  /**
   * Takes in a batch of asks in one transaction: everything `looks` name is read at once, then
   * `decide` runs over a view of the store in which each ask sees the writes of the asks decided
   * before it, so a batch decides as the same asks one after another would, the limit of waiting
   * approvals included (no other writer can come between a count and the insert it allows).
   * `decide` must not await: the transaction commits once it returns. Resolves with what it
   * returned once everything it wrote is stored; rejects, storing nothing of it, when the write
   * fails or `decide` throws.
   */
  async intake<T>(looks: readonly AskLook[], decide: (view: IntakeView) => T): Promise<T> {
    const tx = this.db.transaction(['approvals', 'audit'], 'readwrite');
    const written = tx.done;
    written.catch(() => undefined);
    const view = new IntakeTransaction(tx);
    let decided: T;
    try {
      await view.read(looks);
      decided = decide(view);
    } catch (error) {
      try {
        tx.abort();
      } catch {
        // Already aborted by the failed read.
      }
      throw error;
    }
    await written;
    return decided;
  }

  /**
   * Applies one state-machine event and a patch atomically; throws (changing nothing) when the
   * event is not allowed in the record's current state.
   */
  async transition(key: string, event: ApprovalEvent, patch: ApprovalPatch = {}, detail?: string): Promise<ApprovalRecord> {
    const [result] = await this.transitionAll([{ key, event, patch, ...(detail === undefined ? {} : { detail }) }]);
    if (result === undefined) throw new CountersignError('ERR_STORAGE_FAILED', 'the store answered no change for one transition');
    if ('error' in result) throw result.error;
    return result.record;
  }

  /**
   * Applies many events in one transaction ("Decline all" over a hundred prompts is one write,
   * not a hundred). Each is checked against its record's state as it is inside the transaction:
   * one that is not allowed, or names no record, fails alone and changes nothing of its own.
   * Answers in the order of `changes`; rejects, changing nothing at all, when the write fails.
   */
  async transitionAll(changes: readonly Transition[]): Promise<TransitionResult[]> {
    const tx = this.db.transaction(['approvals', 'audit'], 'readwrite');
    const approvals = tx.objectStore('approvals');
    const audit = tx.objectStore('audit');
    // A failed write aborts the transaction, and tx.done says so; the requests' own rejections
    // (and tx.done's, should a read fail first) must not surface as unhandled besides.
    const written = tx.done;
    written.catch(() => undefined);
    const results = await Promise.all(
      changes.map(async ({ key, event, patch = {}, detail }): Promise<TransitionResult> => {
        const current = await approvals.get(key);
        if (!current) return { key, error: new CountersignError('ERR_ARGUMENT_INVALID', `key: expected the key of an approval, got ${key}, which names none`) };
        let changed: { record: ApprovalRecord; line: AuditEntry };
        try {
          changed = applyEvent(current, event, patch, detail);
        } catch (error) {
          return { key, error: error instanceof Error ? error : new CountersignError('ERR_NOT_ALLOWED', String(error)) };
        }
        approvals.put(changed.record).catch(() => undefined);
        audit.add(changed.line).catch(() => undefined);
        return { key, record: changed.record };
      }),
    );
    await written;
    return results;
  }

  /** The agent asked again for the same revision: route the answer to its new request. */
  async reattach(key: string, link: Link): Promise<ApprovalRecord> {
    const tx = this.db.transaction('approvals', 'readwrite');
    const current = await tx.store.get(key);
    if (!current) throw new CountersignError('ERR_ARGUMENT_INVALID', `key: expected the key of an approval, got ${key}, which names none`);
    const updated = relinked(current, link);
    await tx.store.put(updated);
    await tx.done;
    return updated;
  }

  /** Changes fields that are not part of the state machine (connection, agent presence). */
  patch(key: string, patch: PresencePatch): Promise<void> {
    return this.patchAll([key], patch);
  }

  /** The same change of connection fields for many approvals, in one transaction (a bridge restart clears every one). */
  async patchAll(keys: readonly string[], patch: PresencePatch): Promise<void> {
    const tx = this.db.transaction('approvals', 'readwrite');
    const written = tx.done;
    written.catch(() => undefined);
    await Promise.all(
      keys.map(async (key) => {
        const current = await tx.store.get(key);
        if (current) tx.store.put({ ...current, ...patch }).catch(() => undefined);
      }),
    );
    await written;
  }

  async audit(kind: string, entry: Omit<AuditEntry, 'at' | 'kind'> = {}): Promise<void> {
    await this.db.add('audit', { ...entry, kind, at: Date.now() });
  }

  auditLog(): Promise<AuditEntry[]> {
    return this.db.getAll('audit');
  }

  /**
   * A paired agent, from memory once read: every message of an agent needs its record. This Store
   * (the worker has one) is the only writer of agents, and putAgent keeps the memory current.
   */
  async getAgent(thumbprint: string): Promise<PairedAgent | undefined> {
    let cached = this.agentCache.get(thumbprint);
    if (!cached) {
      const read = this.db.get('agents', thumbprint);
      cached = read;
      this.agentCache.set(thumbprint, read);
      // A failed read is not remembered: the next one asks IndexedDB again.
      read.catch(() => {
        if (this.agentCache.get(thumbprint) === read) this.agentCache.delete(thumbprint);
      });
    }
    const agent = await cached;
    // A copy: a caller changing what it got must not change what the next one gets.
    return agent && structuredClone(agent);
  }

  agents(): Promise<PairedAgent[]> {
    return this.db.getAll('agents');
  }

  async putAgent(agent: PairedAgent): Promise<void> {
    // Forgotten while the write runs: a read meanwhile goes to IndexedDB, which orders it after
    // the write; one that started before it cannot put the old record back in memory.
    this.agentCache.delete(agent.thumbprint);
    await this.db.put('agents', agent);
    this.agentCache.set(agent.thumbprint, Promise.resolve(structuredClone(agent)));
    await this.audit(agent.revokedAt ? 'agent-revoked' : 'agent-paired', { agent: agent.thumbprint, detail: agent.name });
  }

  async getKeyPair(): Promise<StoredKeyPair | undefined> {
    const stored = await this.db.get('keys', 'extension');
    return stored?.name === 'extension' ? stored : undefined;
  }

  /** The passkey state; undefined when none was ever registered. */
  async getPasskey(): Promise<StoredPasskey | undefined> {
    const stored = await this.db.get('keys', 'passkey');
    return stored?.name === 'passkey' ? stored : undefined;
  }

  /** Records the counter of an assertion just verified, so a cloned authenticator's older count is refused. */
  async putPasskeySignCount(signCount: number): Promise<void> {
    const stored = await this.getPasskey();
    if (stored) await this.db.put('keys', { ...stored, signCount });
  }

  async putPasskey(credential: PasskeyCredential | null, changedAt: number): Promise<StoredPasskey> {
    const stored: StoredPasskey = { name: 'passkey', credential, changedAt };
    await this.db.put('keys', stored);
    await this.audit(credential === null ? 'passkey-removed' : 'passkey-registered', { detail: credential?.credential_id.slice(0, 16) ?? '' });
    return stored;
  }

  /** Stores the key pair only if none exists yet, so two racing starts keep one key. */
  async putKeyPairOnce(pair: StoredKeyPair): Promise<StoredKeyPair> {
    const tx = this.db.transaction('keys', 'readwrite');
    const existing = await tx.store.get('extension');
    if (!existing) await tx.store.add(pair);
    await tx.done;
    return existing?.name === 'extension' ? existing : pair;
  }
}

/**
 * Version 1 records move to version 2 keys inside the upgrade transaction, with the links between
 * revisions (`previousKey`, `heldReason`) rewritten, so an update loses no pending prompt.
 */
async function rekeyVersion1(approvals: {
  getAll(): Promise<ApprovalRecord[]>;
  delete(key: string): Promise<void>;
  put(value: ApprovalRecord): Promise<unknown>;
}): Promise<void> {
  const records = await approvals.getAll();
  const renamed = new Map(records.map((r) => [r.key, approvalKey(r.agent, r.company.origin, r.operationId, r.revision)]));
  for (const r of records) await approvals.delete(r.key);
  for (const r of records) {
    const moved: ApprovalRecord = { ...r, key: renamed.get(r.key)! };
    if (r.previousKey !== undefined) moved.previousKey = renamed.get(r.previousKey) ?? r.previousKey;
    if (r.heldReason !== undefined) moved.heldReason = renamed.get(r.heldReason) ?? r.heldReason;
    await approvals.put(moved);
  }
}

/** One event applied to `current`, and its audit line; throws ERR_NOT_ALLOWED when the state machine forbids it. */
function applyEvent(current: ApprovalRecord, event: ApprovalEvent, patch: ApprovalPatch, detail: string | undefined): { record: ApprovalRecord; line: AuditEntry } {
  const state = nextState(current.state, event);
  const at = Date.now();
  return {
    record: { ...current, ...patch, state, updatedAt: at },
    line: { at, kind: event, key: current.key, agent: current.agent, from: current.state, to: state, ...(detail === undefined ? {} : { detail }) },
  };
}

function relinked(current: ApprovalRecord, link: Link): ApprovalRecord {
  return { ...current, ...link, agentConnected: true };
}

/** Neither part has a space (approvalKey): one operation of one agent at one Company. */
function operationKey(agent: string, origin: string, operationId: string): string {
  return `${agent} ${origin} ${operationId}`;
}

type IntakeStores = IDBPTransaction<CountersignDB, Array<'approvals' | 'audit'>, 'readwrite'>;

/**
 * Store.intake's view: the records its looks named, read once at the start, and the writes made
 * through it since, which it issues to the transaction as they are made (never awaited: the
 * transaction commits them all, or none).
 */
class IntakeTransaction implements IntakeView {
  /** Every record read or written, by key; undefined for a key read that names none. */
  private readonly records = new Map<string, ApprovalRecord | undefined>();
  /** The keys of each operation read (operationKey). */
  private readonly operations = new Map<string, Set<string>>();
  private readonly pending = new Map<string, number>();

  constructor(private readonly tx: IntakeStores) {}

  async read(looks: readonly AskLook[]): Promise<void> {
    const approvals = this.tx.objectStore('approvals');
    const operations = new Map(looks.map((l) => [operationKey(l.agent, l.origin, l.operationId), l]));
    const agents = new Set(looks.map((l) => l.agent));
    const keys = new Set(looks.map((l) => l.key));
    // All asked at once: one round trip to IndexedDB for the whole batch, not one per ask.
    const [revisions, lists, counts] = await Promise.all([
      Promise.all([...keys].map((key) => approvals.get(key))),
      Promise.all([...operations.values()].map((l) => approvals.index('by-operation').getAll([l.agent, l.origin, l.operationId]))),
      Promise.all([...agents].map((agent) => approvals.index('by-agent-state').count([agent, 'pending']))),
    ]);
    [...keys].forEach((key, i) => this.records.set(key, revisions[i]));
    [...operations.keys()].forEach((op, i) => {
      const list = lists[i] ?? [];
      for (const r of list) this.records.set(r.key, r);
      this.operations.set(op, new Set(list.map((r) => r.key)));
    });
    [...agents].forEach((agent, i) => this.pending.set(agent, counts[i] ?? 0));
  }

  get(key: string): ApprovalRecord | undefined {
    if (!this.records.has(key)) throw new CountersignError('ERR_STORAGE_FAILED', `key: ${key} was not read by this intake`);
    return this.records.get(key);
  }

  byOperation(agent: string, origin: string, operationId: string): ApprovalRecord[] {
    const keys = this.operations.get(operationKey(agent, origin, operationId));
    if (!keys) throw new CountersignError('ERR_STORAGE_FAILED', `operation ${operationId} of ${origin} was not read by this intake`);
    return [...keys].map((key) => this.records.get(key)).filter((r): r is ApprovalRecord => r !== undefined);
  }

  waiting(agent: string): number {
    const count = this.pending.get(agent);
    if (count === undefined) throw new CountersignError('ERR_STORAGE_FAILED', `agent ${agent} was not counted by this intake`);
    return count;
  }

  insert(record: ApprovalRecord, audit: Omit<AuditEntry, 'at'>): void {
    if (this.get(record.key) !== undefined) throw new CountersignError('ERR_ARGUMENT_INVALID', `key: ${record.key} is stored already`);
    this.written(record, undefined);
    this.tx.objectStore('approvals').add(record).catch(() => undefined);
    this.audit(audit.kind, audit);
  }

  transition(key: string, event: ApprovalEvent, patch: ApprovalPatch = {}, detail?: string): ApprovalRecord {
    const current = this.get(key);
    if (!current) throw new CountersignError('ERR_ARGUMENT_INVALID', `key: expected the key of an approval, got ${key}, which names none`);
    const { record, line } = applyEvent(current, event, patch, detail);
    this.written(record, current);
    this.tx.objectStore('approvals').put(record).catch(() => undefined);
    this.tx.objectStore('audit').add(line).catch(() => undefined);
    return record;
  }

  reattach(key: string, link: Link): ApprovalRecord {
    const current = this.get(key);
    if (!current) throw new CountersignError('ERR_ARGUMENT_INVALID', `key: expected the key of an approval, got ${key}, which names none`);
    const record = relinked(current, link);
    this.written(record, current);
    this.tx.objectStore('approvals').put(record).catch(() => undefined);
    return record;
  }

  audit(kind: string, entry: Omit<AuditEntry, 'at' | 'kind'> = {}): void {
    this.tx.objectStore('audit').add({ ...entry, kind, at: Date.now() }).catch(() => undefined);
  }

  /** What the next reads see: the record, its operation's revisions, its agent's count. */
  private written(record: ApprovalRecord, before: ApprovalRecord | undefined): void {
    const op = operationKey(record.agent, record.company.origin, record.operationId);
    const keys = this.operations.get(op);
    if (!keys) throw new CountersignError('ERR_STORAGE_FAILED', `operation ${record.operationId} of ${record.company.origin} was not read by this intake`);
    keys.add(record.key);
    this.records.set(record.key, record);
    const delta = (record.state === 'pending' ? 1 : 0) - (before?.state === 'pending' ? 1 : 0);
    if (delta !== 0) this.pending.set(record.agent, this.waiting(record.agent) + delta);
  }
}

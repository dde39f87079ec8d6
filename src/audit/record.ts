// `recordAudit(tx, …)`: the one call a service makes beside a configuration change, on the
// transaction of the change, so an entry exists exactly when the change committed. Who acted and
// from where come from the request or command running it (core/actor.ts); what changed is the
// action, its target and, for settings, before and after, which are redacted (redact.ts) before
// they are stored.
import { type Acting, type Actor, currentActing } from '../core/actor.ts';
import { newId } from '../db/ids.ts';
import type { Tx } from '../db/pool.ts';
import type { AuditAction } from './actions.ts';
import { type AuditInsert, insertAuditEntry } from './queries.ts';
import { redact } from './redact.ts';

export type AuditChange = {
  workspaceId: string;
  action: AuditAction;
  /** The id of the changed thing; its type is the action's first part (`apiKey.created` → apiKey). */
  targetId: string;
  before?: unknown;
  after?: unknown;
  /** Who acted, when it is not who runs the request (a person joining as they sign in). */
  actor?: Actor;
};

/**
 * When a setting was saved or used is not part of it (the entry has its own time), and would make
 * every before/after differ.
 */
const BOOKKEEPING = ['createdAt', 'updatedAt', 'lastUsedAt'];

/** JSON as it will be stored (dates as strings, undefined fields gone), then without secrets. */
function stored(value: unknown): unknown {
  if (value === undefined) return undefined;
  const json = JSON.parse(JSON.stringify(value));
  if (json && typeof json === 'object' && !Array.isArray(json))
    for (const field of BOOKKEEPING) delete json[field];
  return redact(json);
}

function actorColumns({ actor, origin }: Acting) {
  const http = origin.kind === 'http' ? origin : { ip: null, userAgent: null };
  const columns = { ip: http.ip, userAgent: http.userAgent, actorName: null as string | null };
  switch (actor.kind) {
    case 'user':
      return { ...columns, actorType: 'user', actorId: actor.userId } as const;
    case 'apiKey':
      return { ...columns, actorType: 'apiKey', actorId: actor.keyId } as const;
    case 'cli':
      return { ...columns, actorType: 'cli', actorId: null, actorName: actor.osUser } as const;
    case 'system':
      return { ...columns, actorType: 'system', actorId: null } as const;
  }
}

function actingWith(actor: Actor | undefined): Acting {
  const acting = currentActing();
  return actor ? { ...acting, actor } : acting;
}

export async function recordAudit(tx: Tx, change: AuditChange): Promise<void> {
  const entry: AuditInsert = {
    id: newId('auditEntry'),
    workspaceId: change.workspaceId,
    action: change.action,
    targetType: change.action.slice(0, change.action.indexOf('.')),
    targetId: change.targetId,
    ...actorColumns(actingWith(change.actor)),
    before: stored(change.before),
    after: stored(change.after),
  };
  await insertAuditEntry(tx, entry);
}

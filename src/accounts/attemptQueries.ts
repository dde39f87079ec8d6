// Sign-in and registration attempts (table auth_attempts). The exception to the usual shape:
// reserving an attempt is three statements in one transaction, because the count and the insert
// must not interleave with another request's (see reserveAttempt in limits.ts).
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { type Db, sql, type Tx } from '../db/pool.ts';

export type Limited = { subject: string; limit: number };

/** A 64-bit advisory lock key per subject (the same subject always maps to the same key). */
function lockKey(subject: string): bigint {
  return createHash('sha256').update(`auth_attempts:${subject}`).digest().readBigInt64BE(0);
}

/**
 * Serialises attempts on these subjects until the transaction ends. Locks are taken in key order
 * (unnest yields the array in order), so two requests sharing subjects cannot deadlock.
 */
export async function lockAttemptSubjects(tx: Tx, subjects: string[]): Promise<void> {
  const keys = [...new Set(subjects.map(lockKey))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  await tx.query(sql.type(z.object({ locked: z.number() }))`
    select count(*)::int as locked
    from (select pg_advisory_xact_lock(key) from unnest(${sql.array(keys.map(String), 'int8')}) as key) taken
  `);
}

const LockedSubject = z.object({ subject: z.string(), retry_after_seconds: z.number() });

/**
 * The subjects that already hold `limit` attempts within the window, each with the seconds until
 * its oldest counted attempt leaves the window (the database's clock, so web processes agree).
 * At most the window: an attempt stamped by a transaction that began after this one (it committed
 * while this one waited for the subjects' locks) lies a little ahead of this one's now(), and made
 * Retry-After one second longer than the window (3601 for an hour; seen once in CI).
 */
export async function findLockedSubjects(db: Db, subjects: Limited[], windowMinutes: number) {
  return db.any(sql.type(LockedSubject)`
    select s.subject,
           least(ceil(extract(epoch from a.attempted_at + make_interval(mins => ${windowMinutes}) - now())),
                 ${windowMinutes} * 60)::int as retry_after_seconds
    from unnest(
      ${sql.array(
        subjects.map((item) => item.subject),
        'text',
      )},
      ${sql.array(
        subjects.map((item) => item.limit),
        'int4',
      )}
    ) as s (subject, max_attempts)
    cross join lateral (
      select attempted_at from auth_attempts
      where subject = s.subject and attempted_at > now() - make_interval(mins => ${windowMinutes})
      order by attempted_at desc
      offset s.max_attempts - 1
      limit 1
    ) a
  `);
}

export async function insertAttempt(db: Db, attemptId: string, subjects: string[]): Promise<void> {
  await db.query(sql.typeAlias('void')`
    insert into auth_attempts (subject, attempt_id)
    select unnest(${sql.array(subjects, 'text')}), ${attemptId}::uuid
  `);
}

/** Removes one attempt's rows and every row of some subjects (a cleared counter). */
export async function deleteAttempts(db: Db, attemptId: string, subjects: string[]): Promise<void> {
  await db.query(sql.typeAlias('void')`
    delete from auth_attempts
    where attempt_id = ${attemptId}::uuid or subject = any(${sql.array(subjects, 'text')})
  `);
}

const Cleared = z.object({ cleared: z.number() });

/**
 * Every subject about an email: its all-address counter and one counter per address. Answers how
 * many attempts that was (an attempt has a row per subject).
 */
export async function deleteAttemptsOfEmail(db: Db, email: string): Promise<number> {
  return db.oneFirst(sql.type(Cleared)`
    with deleted as (
      delete from auth_attempts
      where subject = ${`email:${email}`}
         or (starts_with(subject, 'email-ip:') and substr(subject, strpos(subject, ' ') + 1) = ${email})
      returning attempt_id
    )
    select count(distinct attempt_id)::int as cleared from deleted
  `);
}

/** Every sign-in subject about a client address: its own counter and its per-email counters. */
export async function deleteAttemptsOfAddress(db: Db, ip: string): Promise<number> {
  return db.oneFirst(sql.type(Cleared)`
    with deleted as (
      delete from auth_attempts where subject = ${`ip:${ip}`} or starts_with(subject, ${`email-ip:${ip} `})
      returning attempt_id
    )
    select count(distinct attempt_id)::int as cleared from deleted
  `);
}

export async function pruneAttempts(db: Db, windowMinutes: number): Promise<void> {
  await db.query(sql.typeAlias('void')`
    delete from auth_attempts where attempted_at < now() - make_interval(mins => ${windowMinutes})
  `);
}

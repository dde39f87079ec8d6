// Event conditions counted set-based, for a known set of contacts (ingest re-evaluates the
// segments of up to a thousand contacts at once). Each distinct condition (type, window, `where`)
// becomes one grouped aggregate over those contacts' events, shared by every segment that uses it,
// where correlated subqueries cost one index probe and one subplan run per contact, per segment.
// A contact without a row has no such event: its count is 0, which `lte`, `lt`, `eq: 0` and `not`
// depend on. The counts are exact, not capped like the subqueries', so a contact's whole history of
// that type is read (bounded by `within` when given); the planner chooses between probing the
// contact index per target and one pass over the workspace's events of that type.
import type { FragmentSqlToken } from 'slonik';
import { sql } from '../db/pool.ts';
import { eventFilters } from './compile.ts';
import { durationSeconds } from './duration.ts';
import type { EventCondition } from './ruleSchemas.ts';

type Fragment = FragmentSqlToken;

export class EventCounts {
  readonly #aliases = new Map<string, { alias: string; event: EventCondition }>();
  readonly #workspaceId: string;

  constructor(workspaceId: string) {
    this.#workspaceId = workspaceId;
  }

  /** A CompileContext.eventCount that also records, in `used`, the counts a rule joins. */
  counter(used: Set<string>): (event: EventCondition) => Fragment {
    return (event) => {
      const alias = this.#aliasOf(event);
      used.add(alias);
      return sql.fragment`coalesce(${sql.identifier([alias, 'n'])}, 0)`;
    };
  }

  /** The CTEs of every condition counted so far, over the contacts of a CTE named `targets`. */
  ctes(): Fragment[] {
    return [...this.#aliases.values()].map(
      ({ alias, event }) => sql.fragment`${sql.identifier([alias])} as materialized (
        select e.contact_id, count(*) as n from targets t join events e on e.contact_id = t.id
        where ${eventFilters(event, this.#workspaceId)}
        group by e.contact_id
      )`,
    );
  }

  /** Left joins of the counts in `used` onto the contacts row `c`. */
  joins(used: ReadonlySet<string>): Fragment {
    if (used.size === 0) return sql.fragment``;
    const joins = [...used].map(
      (alias) =>
        sql.fragment`left join ${sql.identifier([alias])} on ${sql.identifier([alias, 'contact_id'])} = c.id`,
    );
    return sql.fragment`${sql.join(joins, sql.fragment` `)}`;
  }

  #aliasOf(event: EventCondition): string {
    // The count is not part of the key: conditions differing only in it share one count.
    const seconds = event.within ? durationSeconds(event.within) : null;
    const key = JSON.stringify([event.event, seconds, event.where ?? []]);
    let entry = this.#aliases.get(key);
    if (!entry) {
      entry = { alias: `event_count_${this.#aliases.size}`, event };
      this.#aliases.set(key, entry);
    }
    return entry.alias;
  }
}

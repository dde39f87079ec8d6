// Where each column of a CSV import goes, as the console lets a person choose it: a field of the
// record (a contact's email, an event's type…), an attribute of the contact or a key of the event's
// metadata (named as the column), or nowhere. The CLI reads columns by their names (rows.ts); the
// console guesses the same and lets the guess be changed before the import starts. An NDJSON file
// is already in the API's shape: its keys are shown, not mapped.
import { IngestEventBody } from '../events/index.ts';

export type ImportTarget = `field:${string}` | 'attribute' | 'metadata' | 'ignore';
/** Each column of the file with where it goes, in the file's order. */
export type CsvMapping = readonly { column: string; target: ImportTarget }[];

export const CONTACT_FIELDS = ['email', 'firstName', 'lastName', 'phone', 'anonymousId'] as const;
/** The event's fields a column may fill (metadata is filled by columns of its own). */
export const EVENT_FIELDS = Object.keys(IngestEventBody.shape).filter((name) => name !== 'metadata');

/** Column names, written any way (`First name`, `first_name`), as their key. */
const keyOf = (column: string) => column.toLowerCase().replace(/[\s_-]+/g, '');

/** Other names a column of these fields often has in exports of other systems. */
const ALIASES: Record<'contacts' | 'events', Map<string, string>> = {
  contacts: new Map([
    ['emailaddress', 'email'],
    ['mail', 'email'],
    ['givenname', 'firstName'],
    ['surname', 'lastName'],
    ['familyname', 'lastName'],
    ['mobile', 'phone'],
    ['phonenumber', 'phone'],
  ]),
  events: new Map([
    ['event', 'type'],
    ['eventtype', 'type'],
    ['eventname', 'type'],
    ['time', 'timestamp'],
    ['occurredat', 'timestamp'],
    ['date', 'timestamp'],
    ['eventid', 'id'],
    ['contact', 'contactId'],
    ['emailaddress', 'email'],
  ]),
};

export const fieldsOf = (kind: 'contacts' | 'events'): readonly string[] =>
  kind === 'contacts' ? CONTACT_FIELDS : EVENT_FIELDS;

/** The guess for one column: a field when its name says one, else an attribute (contacts) or metadata (events). */
function guessTarget(kind: 'contacts' | 'events', column: string, taken: Set<string>): ImportTarget {
  const key = keyOf(column);
  const field = fieldsOf(kind).find((name) => name.toLowerCase() === key) ?? ALIASES[kind].get(key);
  // A second column of the same field would overwrite the first: it stays data instead.
  if (field && !taken.has(field)) {
    taken.add(field);
    return `field:${field}`;
  }
  if (column === '') return 'ignore';
  return kind === 'contacts' ? 'attribute' : 'metadata';
}

export function guessMapping(kind: 'contacts' | 'events', columns: readonly string[]): ImportTarget[] {
  const taken = new Set<string>();
  return columns.map((column) => guessTarget(kind, column, taken));
}

/** Whether `target` is one a column of this kind may have. */
export function validTarget(kind: 'contacts' | 'events', target: string): target is ImportTarget {
  if (target === 'ignore') return true;
  if (target === (kind === 'contacts' ? 'attribute' : 'metadata')) return true;
  return target.startsWith('field:') && fieldsOf(kind).includes(target.slice('field:'.length));
}

/**
 * The API drops a key named `__proto__` (zod leaves it out of the object it returns), so such a
 * column could only be lost: the row is refused, naming the column, rather than imported without it.
 */
const UNSTORABLE_KEY = '__proto__';

/** A CSV row as the record the mapping makes of it; empty cells are absent. */
export function mappedRecord(
  kind: 'contacts' | 'events',
  row: Record<string, unknown>,
  mapping: CsvMapping,
): { value: Record<string, unknown> } | { reason: string } {
  const record: Record<string, unknown> = {};
  const data: Record<string, unknown> = {};
  for (const { column, target } of mapping) {
    const value = Object.hasOwn(row, column) ? row[column] : undefined;
    if (value === '' || value === undefined || target === 'ignore') continue;
    if (target.startsWith('field:')) record[target.slice('field:'.length)] = value;
    else if (column === UNSTORABLE_KEY)
      return {
        reason: `${column}: cannot be the name of an ${target} (the API drops it): rename the column`,
      };
    else data[column] = value;
  }
  if (Object.keys(data).length) record[kind === 'contacts' ? 'attributes' : 'metadata'] = data;
  return { value: record };
}

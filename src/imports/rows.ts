// Each record of an import file, validated with the API's own field schemas and turned into a
// line of the staging table's COPY text, or refused with the reason (one message per field).
import { z } from 'zod';
import { AnonymousId, Email, JsonObject, Name, Phone } from '../contacts/index.ts';
import { IngestEventBody } from '../events/index.ts';
import { zodIssuesToFieldErrors } from '../http/validation.ts';
import type { RowIds } from './bulkIds.ts';
import { type CsvMapping, mappedRecord } from './mapping.ts';
import { type JsonLimits, recordBreach } from './rowLimits.ts';

export type Checked = { copy: string } | { reason: string };
/** A CSV row as the record it makes, or why it makes none. */
type CsvRead = { value: Record<string, unknown> } | { reason: string };

export const ContactRecord = z.strictObject({
  email: Email,
  firstName: Name.optional(),
  lastName: Name.optional(),
  phone: Phone.optional(),
  anonymousId: AnonymousId.optional(),
  attributes: JsonObject.optional(),
});

/**
 * CSV headers that name a contact field (any other column becomes an attribute). A Map: an
 * object's lookup would find `constructor` or `__proto__` on its prototype and make them fields.
 */
const CSV_FIELDS = new Map([
  ['email', 'email'],
  ['firstname', 'firstName'],
  ['first_name', 'firstName'],
  ['lastname', 'lastName'],
  ['last_name', 'lastName'],
  ['phone', 'phone'],
  ['anonymousid', 'anonymousId'],
  ['anonymous_id', 'anonymousId'],
]);

/**
 * The API drops an attribute named `__proto__` (zod leaves it out of the object it returns, as
 * assigning it would replace the object's prototype), so such a column could only be lost: the
 * row is refused, naming the column, rather than imported without it.
 */
const UNSTORABLE_ATTRIBUTE = '__proto__';

/** A CSV row as a contact record: known columns are fields, the rest attributes; empty cells are absent. */
function csvContact(row: Record<string, unknown>): CsvRead {
  const record: Record<string, unknown> = {};
  const attributes: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    if (value === '' || value === undefined) continue;
    const field = CSV_FIELDS.get(column.toLowerCase());
    if (field) record[field] = value;
    else if (column === UNSTORABLE_ATTRIBUTE)
      return { reason: `${column}: cannot be an attribute's name (the API drops it): rename the column` };
    else attributes[column] = value;
  }
  if (Object.keys(attributes).length) record.attributes = attributes;
  return { value: record };
}

// jsonb and text hold no NUL character, and jsonb no lone surrogate: the API refuses both before
// parsing; here they would fail the whole COPY, so the row is refused instead.
// JSON.stringify writes a well-formed pair as its characters, so any \ud800-\udfff escape is a lone half.
const UNSTORABLE_JSON = /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f])/i;

function unstorable(json: string, texts: readonly (string | undefined)[]): boolean {
  return UNSTORABLE_JSON.test(json) || texts.some((text) => text?.includes('\0'));
}

const SPECIAL = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A value in PostgreSQL's COPY text format. */
function field(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '\\N';
  const text = String(value);
  return SPECIAL.test(text) ? text.replace(/[\\\t\n\r]/g, (char) => ESCAPES[char]) : text;
}

const line = (values: (string | number | null | undefined)[]) => `${values.map(field).join('\t')}\n`;

function reasonOf(error: z.ZodError): string {
  return zodIssuesToFieldErrors(error.issues, '')
    .map((fieldError) => `${fieldError.path.replace(/^\./, '') || 'record'}: ${fieldError.message}`)
    .join('; ');
}

export const CONTACT_COLUMNS = [
  'line int',
  'email text',
  'first_name text',
  'last_name text',
  'phone text',
  'anonymous_id text',
  'attributes jsonb',
  'new_contact_id text',
  'created_outbox_id text',
  'updated_outbox_id text',
];

export function checkContact(lineNumber: number, record: Record<string, unknown>, ids: RowIds): Checked {
  const parsed = ContactRecord.safeParse(record);
  if (!parsed.success) return { reason: reasonOf(parsed.error) };
  const contact = parsed.data;
  const attributes = JSON.stringify(contact.attributes ?? {});
  const texts = [contact.email, contact.firstName, contact.lastName, contact.phone, contact.anonymousId];
  if (unstorable(attributes, texts)) return { reason: 'holds a NUL character or an unpaired surrogate' };
  return {
    copy: line([
      lineNumber,
      contact.email,
      contact.firstName,
      contact.lastName,
      contact.phone,
      contact.anonymousId,
      attributes,
      ids.next('contact', lineNumber),
      ids.next('outgoingEvent', 2 * lineNumber),
      ids.next('outgoingEvent', 2 * lineNumber + 1),
    ]),
  };
}

export const EVENT_COLUMNS = [
  'line int',
  'row_key text',
  'type text',
  'contact_ref text',
  'email text',
  'anonymous_id text',
  'first_name text',
  'last_name text',
  'phone text',
  'metadata jsonb',
  'session_id text',
  'page_url text',
  'referrer text',
  'utm_source text',
  'utm_medium text',
  'utm_campaign text',
  'occurred_at timestamptz',
  'event_id text',
];

export function checkEvent(lineNumber: number, record: Record<string, unknown>, ids: RowIds): Checked {
  const parsed = IngestEventBody.safeParse(record);
  if (!parsed.success) return { reason: reasonOf(parsed.error) };
  const event = parsed.data;
  const metadata = JSON.stringify(event.metadata ?? {});
  const texts = [
    event.id,
    event.type,
    event.contactId,
    event.email,
    event.anonymousId,
    event.firstName,
    event.lastName,
    event.phone,
    event.sessionId,
    event.pageUrl,
    event.referrer,
    event.utmSource,
    event.utmMedium,
    event.utmCampaign,
  ];
  if (unstorable(metadata, texts)) return { reason: 'holds a NUL character or an unpaired surrogate' };
  // The ids of the contacts and outgoing events it may make are made in SQL, from its line
  // (countedIds), for the rows that need them.
  return {
    copy: line([
      lineNumber,
      ...texts.slice(0, 8),
      metadata,
      ...texts.slice(8),
      event.timestamp,
      ids.event(event.timestamp, lineNumber),
    ]),
  };
}

export type ImportKind = 'contacts' | 'events';

/**
 * A CSV row as the record the API would take, or why it is none: by the console's `mapping` when
 * given, else by the columns' names (a contacts row made one by csvContact, an events row as is).
 */
export function csvRecord(kind: ImportKind, row: Record<string, unknown>, mapping?: CsvMapping): CsvRead {
  if (mapping) return mappedRecord(kind, row, mapping);
  return kind === 'contacts' ? csvContact(row) : { value: row };
}

/** A row of either kind (a CSV row already made a contact record by csvContact). */
export function checkRow(
  kind: ImportKind,
  line: number,
  record: Record<string, unknown>,
  ids: RowIds,
): Checked {
  return kind === 'contacts' ? checkContact(line, record, ids) : checkEvent(line, record, ids);
}

/** A record read from CSV: held to the API's body limits as the JSON it would be sent as, then checked. */
export function checkCsvRecord(
  kind: ImportKind,
  line: number,
  record: Record<string, unknown>,
  ids: RowIds,
  limits: JsonLimits,
): Checked {
  const breach = recordBreach(record, limits);
  return breach ? { reason: breach } : checkRow(kind, line, record, ids);
}

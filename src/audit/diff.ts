// Before and after as a person reads them: the fields that differ, one line each, by their dotted
// path (`dkim.selector`). Arrays are compared and shown whole: a list of events or scopes reads
// better as one value than as numbered items.

export type FieldChange = { field: string; before: string | null; after: string | null };

function leaves(value: unknown, prefix: string, out: Map<string, string>): Map<string, string> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0 && prefix) out.set(prefix, '{}');
    for (const [name, field] of entries) leaves(field, prefix ? `${prefix}.${name}` : name, out);
  } else if (value !== undefined && prefix) {
    out.set(prefix, typeof value === 'string' ? value : JSON.stringify(value));
  } else if (value !== undefined && value !== null) {
    out.set('(value)', typeof value === 'string' ? value : JSON.stringify(value));
  }
  return out;
}

/** The fields whose values differ; a field only before was removed, one only after was added. */
export function fieldChanges(before: unknown, after: unknown): FieldChange[] {
  const old = leaves(before, '', new Map());
  const now = leaves(after, '', new Map());
  const fields = [...new Set([...now.keys(), ...old.keys()])];
  return fields
    .filter((field) => old.get(field) !== now.get(field))
    .map((field) => ({ field, before: old.get(field) ?? null, after: now.get(field) ?? null }));
}

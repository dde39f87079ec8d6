// Calendar days in UTC, as the daily figures of the console's sparklines and the statistics count
// them.

/** The last `days` UTC dates (YYYY-MM-DD), oldest first, today last. */
export function lastUtcDays(days: number, now = new Date()): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) =>
    new Date(today - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10),
  );
}

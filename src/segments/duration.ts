// ISO 8601 durations (`P30D`, `PT1H30M`, `P1W`) as segment windows, scoring cooldowns and decay
// periods. They are stored as given and converted to whole seconds for SQL, with the calendar
// units fixed (a year is 365 days, a month 30) so a window means the same on every day.
import '../http/openapi.ts'; // .openapi() on zod schemas
import { z } from 'zod';

const PATTERN =
  /^P(?!$)(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;
const UNIT_SECONDS = [365 * 86_400, 30 * 86_400, 7 * 86_400, 86_400, 3_600, 60, 1];

/** Ten years: long enough for any window, short enough to fit an integer column. */
export const MAX_DURATION_SECONDS = 10 * 365 * 86_400;

/** Whole seconds of an ISO 8601 duration, or null when the text is not one. */
export function durationSeconds(text: string): number | null {
  const match = PATTERN.exec(text);
  if (!match) return null;
  return UNIT_SECONDS.reduce((total, unit, i) => total + Number(match[i + 1] ?? 0) * unit, 0);
}

export const IsoDuration = z
  .string()
  .superRefine((text, ctx) => {
    const seconds = durationSeconds(text);
    if (seconds === null) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be an ISO 8601 duration such as P30D, PT12H or P1W (whole numbers, no fractions)',
      });
    } else if (seconds < 1 || seconds > MAX_DURATION_SECONDS) {
      ctx.addIssue({ code: 'custom', message: 'must be between one second and ten years' });
    }
  })
  .openapi({ example: 'P30D', description: 'ISO 8601 duration; a year counts 365 days, a month 30.' });

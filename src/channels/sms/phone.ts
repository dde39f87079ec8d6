// Phone numbers as SMS needs them: E.164 (+ and up to 15 digits), parsed and validated with
// libphonenumber-js. A number written without its country code is read in the channel's default
// region (an ISO 3166 country code, e.g. FR); without one, only international numbers parse.
import { createRequire } from 'node:module';
import type { CountryCode } from 'libphonenumber-js/max';

// The `max` metadata (~90 modules) is required at the first number read, not when the channel
// registry is imported: the CLI and most requests read none.
const require = createRequire(import.meta.url);
const phoneNumbers = () => require('libphonenumber-js/max') as typeof import('libphonenumber-js/max');

export function isRegion(code: string): code is CountryCode {
  return phoneNumbers().isSupportedCountry(code);
}

/** The number in E.164, or null when it is not a valid phone number. */
export function toE164(text: string, defaultRegion?: string | null): string | null {
  const region = defaultRegion && isRegion(defaultRegion) ? defaultRegion : undefined;
  const parsed = phoneNumbers().parsePhoneNumberFromString(
    text.trim(),
    region ? { defaultCountry: region } : {},
  );
  return parsed?.isValid() ? parsed.number : null;
}

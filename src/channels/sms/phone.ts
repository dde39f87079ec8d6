// Phone numbers as SMS needs them: E.164 (+ and up to 15 digits), parsed and validated with
// libphonenumber-js. A number written without its country code is read in the channel's default
// region (an ISO 3166 country code, e.g. FR); without one, only international numbers parse.
import { type CountryCode, isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js/max';

export function isRegion(code: string): code is CountryCode {
  return isSupportedCountry(code);
}

/** The number in E.164, or null when it is not a valid phone number. */
export function toE164(text: string, defaultRegion?: string | null): string | null {
  const region = defaultRegion && isRegion(defaultRegion) ? defaultRegion : undefined;
  const parsed = parsePhoneNumberFromString(text.trim(), region ? { defaultCountry: region } : {});
  return parsed?.isValid() ? parsed.number : null;
}

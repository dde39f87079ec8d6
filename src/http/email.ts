// Email addresses as RFC 6531 (SMTPUTF8) allows them: letters, marks and digits of any script in
// the local part and in the domain (`zoë@exämple.com`), besides ASCII. Every address is taken the
// same way wherever it comes in (contacts, events, inbound webhooks, accounts, members): trimmed,
// lowercased and put in Unicode NFC, so that one address written with another case or with a
// decomposed `ë` (e + U+0308) is the same contact or user. The domain stays in Unicode as given
// (not converted to xn-- punycode), and must be one IDNA accepts.
import { domainToASCII } from 'node:url';
import { z } from 'zod';
import '../core/zodOpenApi.ts';

// The shape zod's own (ASCII) email check accepts, with every script's letters, marks and digits.
const ATOM = "[\\p{L}\\p{M}\\p{N}_'+\\-]";
const LOCAL_PART = `(?:${ATOM}+\\.)*${ATOM}*[\\p{L}\\p{M}\\p{N}_+\\-]`;
const LABEL = '[\\p{L}\\p{M}\\p{N}][\\p{L}\\p{M}\\p{N}\\-]*';
const TOP_LEVEL = '(?:[\\p{L}\\p{M}]{2,}|xn--[a-z0-9\\-]+)';
const ADDRESS = new RegExp(`^(${LOCAL_PART})@((?:${LABEL}\\.)+${TOP_LEVEL})$`, 'u');
/** RFC 5321: a local part of at most 64 octets. */
const MAX_LOCAL_OCTETS = 64;

/** How every address is compared and stored: trimmed, lowercase, NFC. */
export function normaliseEmailText(text: string): string {
  return text.trim().toLowerCase().normalize('NFC');
}

/** Whether normalised text is an email address RFC 6531 allows. */
export function isEmailAddress(text: string): boolean {
  const match = ADDRESS.exec(text);
  if (!match) return false;
  const [, local, domain] = match;
  return Buffer.byteLength(local) <= MAX_LOCAL_OCTETS && domainToASCII(domain) !== '';
}

/** An email address in a request body, normalised as `normaliseEmailText` says. */
export function emailAddress(options: { message: string; maxLength: number }) {
  return z
    .string()
    .trim()
    .toLowerCase()
    .normalize('NFC')
    .max(options.maxLength, `must be at most ${options.maxLength} characters`)
    .refine(isEmailAddress, options.message)
    .openapi({ type: 'string', format: 'idn-email', example: 'ada@example.com' });
}

// Who made a tracking hit: a person, or a machine, and why. Every hit is stored with the result,
// whatever it is; only human hits become message.open / message.click events and webhooks.
//
// Two passes. The request alone (requestReasons, in the web process): the method, prefetch
// headers and the user agent. The hits around it (windowReasons, in the worker once the window has
// passed): how soon after the send, other links of the message hit within a second, the honeypot.
// A hit is human when neither pass found a reason. Its class (messages' hitClass) is human, proxy
// (a privacy proxy loaded the pixel: `mail_proxy`) or machine (any other reason).
import { isbot } from 'isbot';

export const MACHINE_REASONS = [
  'head_request',
  'prefetch',
  'no_user_agent',
  'bot_user_agent',
  'mail_proxy',
  'security_gateway',
  'link_checker',
  'too_soon',
  'many_links_at_once',
  'honeypot',
] as const;
export type MachineReason = (typeof MACHINE_REASONS)[number];

export type HitKind = 'open' | 'click' | 'honeypot';

/**
 * Image proxies that fetch every pixel whatever the person does: Apple Mail Privacy Protection
 * (a bare "Mozilla/5.0", or Mail's WebKit agent with nothing after "(KHTML, like Gecko)": Safari
 * and every browser on it append "Version/… Safari/…"), Gmail's image proxy, Yahoo's. isbot
 * knows some of them; listed anyway.
 */
const MAIL_PROXIES =
  /^Mozilla\/5\.0$|^Mozilla\/5\.0 \(Macintosh; Intel Mac OS X [\d_]+\) AppleWebKit\/[\d.]+ \(KHTML, like Gecko\)$|GoogleImageProxy|ggpht\.com|YahooMailProxy|Yahoo! Slurp/i;

/**
 * Office applications that request a link themselves before (or instead of) the browser opening it:
 * Word's and Outlook's link check ("ms-office; MSOffice 16", "Microsoft Office Existence
 * Discovery"), Outlook's previews ("Microsoft Office/16.0 … Microsoft Outlook"). A person's click
 * arrives from their browser, so on a link these are machines; on the pixel they are Outlook
 * showing the mail a person opened, and count as that person.
 */
const OFFICE_APPS = /ms-office|MSOffice|Microsoft Office|Microsoft Outlook/i;

/** Scripting runtimes isbot does not list: no person browses with them. */
const SCRIPTED_CLIENTS = /PowerShell|WinHttp|Microsoft-CryptoAPI|Microsoft BITS/i;

/**
 * Security gateways that open every link of incoming mail to scan it; isbot misses them (they
 * present browser-like agents with their name appended, or no name at all beyond it).
 */
const SECURITY_GATEWAYS =
  /Barracuda|Mimecast|Proofpoint|SafeLinks|Microsoft Office Protection|MS Office Protection|Symantec|MessageLabs|IronPort|FireEye|Trend ?Micro|Forcepoint|Sophos|Zscaler|Avanan|Check ?Point/i;

export type RequestFacts = {
  method: string;
  userAgent: string | undefined;
  /** Sec-Purpose, Purpose, X-Purpose and X-Moz, joined. */
  purpose: string;
};

function agentReasons(kind: HitKind, userAgent: string | undefined): MachineReason[] {
  const agent = userAgent?.trim() ?? '';
  if (agent === '') return ['no_user_agent'];
  if (SECURITY_GATEWAYS.test(agent)) return ['security_gateway'];
  if (kind === 'open' && MAIL_PROXIES.test(agent)) return ['mail_proxy'];
  if (kind !== 'open' && OFFICE_APPS.test(agent)) return ['link_checker'];
  return isbot(agent) || SCRIPTED_CLIENTS.test(agent) ? ['bot_user_agent'] : [];
}

/**
 * What the request alone says. Express answers HEAD with the GET handler, so the method is
 * checked here: a HEAD is a link checker, never a person.
 */
export function requestReasons(kind: HitKind, facts: RequestFacts): MachineReason[] {
  const reasons: MachineReason[] = [];
  if (facts.method !== 'GET') reasons.push('head_request');
  if (/prefetch|prerender|preview/i.test(facts.purpose)) reasons.push('prefetch');
  reasons.push(...agentReasons(kind, facts.userAgent));
  if (kind === 'honeypot') reasons.push('honeypot');
  return reasons;
}

/** Other links of one message hit within this of a click make it a scanner's sweep. */
export const MANY_LINKS_WINDOW_MS = 1_000;
/** A click this close to a honeypot hit of the same message is the same scanner's. */
export const HONEYPOT_WINDOW_MS = 2_000;
/** The worker classifies a hit once every hit that could change its class has arrived. */
export const SETTLE_MS = Math.max(MANY_LINKS_WINDOW_MS, HONEYPOT_WINDOW_MS) + 200;

export type WindowHit = { id: string; kind: HitKind; url: string | null; occurredAt: number };

/** What the hits around one hit of a message say, and how soon after the send it came. */
export function windowReasons(
  hit: WindowHit,
  neighbours: readonly WindowHit[],
  sentAt: number | null,
  minDelayMs: number,
): MachineReason[] {
  const reasons: MachineReason[] = [];
  if (sentAt === null || hit.occurredAt - sentAt < minDelayMs) reasons.push('too_soon');
  if (hit.kind !== 'click') return reasons;
  const near = (other: WindowHit, ms: number) => Math.abs(other.occurredAt - hit.occurredAt) <= ms;
  const otherLinks = neighbours.filter(
    (other) => other.kind === 'click' && other.url !== hit.url && near(other, MANY_LINKS_WINDOW_MS),
  );
  if (otherLinks.length > 0) reasons.push('many_links_at_once');
  if (neighbours.some((other) => other.kind === 'honeypot' && near(other, HONEYPOT_WINDOW_MS))) {
    reasons.push('honeypot');
  }
  return reasons;
}

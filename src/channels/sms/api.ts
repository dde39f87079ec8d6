// The provider's HTTP API (Twilio's Messages API, or one that speaks it): basic auth with the
// account SID and auth token, form-encoded requests, JSON answers. Requests go through an agent
// that refuses private addresses (unless ALLOW_PRIVATE_TARGETS), and every answer is classified
// here: a channel never throws for what the provider said.
import type { Config } from '../../config.ts';
import { createDeliveryHttp, type DeliveryHttp, refusalCause } from '../../net/ssrf.ts';
import type { SendFailure } from '../types.ts';

/** A workspace's SMS channel as stored (channel_configs.settings); its auth token is sealed apart. */
export type SmsSettings = {
  accountSid: string;
  from: string | null;
  messagingServiceSid: string | null;
  defaultRegion: string | null;
  apiUrl: string;
};

const TIMEOUT_MS = 10_000;
let http: DeliveryHttp | undefined;

function agentFor(config: Config) {
  if (http?.allowPrivate !== config.ALLOW_PRIVATE_TARGETS) {
    void http?.agent.close();
    http = createDeliveryHttp({ allowPrivate: config.ALLOW_PRIVATE_TARGETS, timeoutMs: TIMEOUT_MS });
  }
  return http.agent;
}

export async function closeSmsAgent() {
  const closing = http?.agent.close();
  http = undefined;
  await closing;
}

export type SmsAccount = { sid: string; friendlyName: string | null; status: string | null };

type Answer = { status: number; body: Record<string, unknown>; retryAfter: string | null };

async function call(
  config: Config,
  settings: SmsSettings,
  authToken: string,
  method: 'GET' | 'POST',
  path: string,
  form?: Record<string, string>,
): Promise<Answer> {
  const credentials = Buffer.from(`${settings.accountSid}:${authToken}`).toString('base64');
  // Loaded at the first call (as undici's Agent in src/net/ssrf.ts), not at import.
  const { request } = await import('undici');
  const response = await request(`${settings.apiUrl}/2010-04-01/Accounts/${settings.accountSid}${path}`, {
    method,
    dispatcher: agentFor(config),
    headers: {
      authorization: `Basic ${credentials}`,
      accept: 'application/json',
      ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
  });
  const text = await response.body.text();
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    body = { message: text.slice(0, 200) };
  }
  const retryAfter = response.headers['retry-after'];
  return {
    status: response.statusCode,
    body,
    retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
  };
}

/** The provider's own words for a refusal: "21211: The 'To' number is not a valid phone number." */
function describe(answer: Answer): string {
  const { code, message } = answer.body;
  const text = typeof message === 'string' ? message : `HTTP ${answer.status}`;
  return code === undefined ? text : `${String(code)}: ${text}`;
}

const networkDetail = (error: unknown) =>
  refusalCause(error)?.message ?? `the provider did not answer (${(error as Error).message})`;

export async function fetchAccount(
  config: Config,
  settings: SmsSettings,
  authToken: string,
): Promise<{ status: 'ok'; account: SmsAccount } | { status: 'refused' | 'failed'; detail: string }> {
  let answer: Answer;
  try {
    answer = await call(config, settings, authToken, 'GET', '.json');
  } catch (error) {
    return { status: 'failed', detail: networkDetail(error) };
  }
  if (answer.status === 200) {
    const { sid, friendly_name, status } = answer.body;
    return {
      status: 'ok',
      account: {
        sid: String(sid ?? settings.accountSid),
        friendlyName: typeof friendly_name === 'string' ? friendly_name : null,
        status: typeof status === 'string' ? status : null,
      },
    };
  }
  if (answer.status === 401 || answer.status === 403 || answer.status === 404) {
    return { status: 'refused', detail: describe(answer) };
  }
  return { status: 'failed', detail: describe(answer) };
}

export type SmsSent = { status: 'sent'; sid: string; providerStatus: string };

/** Twilio's error 21610: the recipient replied STOP to this sender, and the provider holds it. */
const UNSUBSCRIBED_RECIPIENT = 21610;

function classify(answer: Answer): SendFailure {
  const error = describe(answer);
  if (answer.status === 429 || answer.status >= 500) {
    const seconds = Number(answer.retryAfter);
    return { status: 'retry', error, ...(seconds > 0 ? { retryAfterMs: seconds * 1000 } : {}) };
  }
  if (answer.status === 401 || answer.status === 403) return { status: 'permanent', stage: 'auth', error };
  if (answer.body.code === UNSUBSCRIBED_RECIPIENT) return { status: 'unsubscribe', error };
  return { status: 'permanent', error };
}

export async function postMessage(
  config: Config,
  settings: SmsSettings,
  authToken: string,
  message: { to: string; body: string; statusCallback: string },
): Promise<SmsSent | SendFailure> {
  const sender: Record<string, string> = settings.messagingServiceSid
    ? { MessagingServiceSid: settings.messagingServiceSid }
    : { From: settings.from ?? '' };
  let answer: Answer;
  try {
    answer = await call(config, settings, authToken, 'POST', '/Messages.json', {
      To: message.to,
      ...sender,
      Body: message.body,
      StatusCallback: message.statusCallback,
    });
  } catch (error) {
    const refused = refusalCause(error);
    if (refused) return { status: 'permanent', stage: 'connect', error: refused.message };
    return { status: 'retry', stage: 'connect', error: networkDetail(error) };
  }
  if (answer.status === 200 || answer.status === 201) {
    return {
      status: 'sent',
      sid: String(answer.body.sid ?? ''),
      providerStatus: String(answer.body.status ?? ''),
    };
  }
  return classify(answer);
}

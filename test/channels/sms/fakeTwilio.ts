// A local fake of Twilio's Messages API, a real HTTP server: `GET /2010-04-01/Accounts/{sid}.json`
// and `POST /2010-04-01/Accounts/{sid}/Messages.json` (form-encoded, basic auth with the account
// SID and auth token), answering with Twilio's JSON and its error envelopes
// ({code, message, more_info, status}). It posts what Twilio posts back, signed the way Twilio
// signs (X-Twilio-Signature over the URL it was given and the sorted parameters): delivery reports
// to each message's StatusCallback and inbound texts to the number's webhook, delivered to the test
// server (the URLs name PUBLIC_URL, which the tests do not listen on).
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { twilioSignature } from '../../../src/channels/sms/signature.ts';

export type FakeSms = {
  sid: string;
  accountSid: string;
  to: string;
  from: string | null;
  messagingServiceSid: string | null;
  body: string;
  statusCallback: string | null;
};

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** Numbers that replied STOP to the sender: Twilio refuses them with error 21610. */
export const STOPPED_NUMBER = '+14155550199';

export class FakeTwilio {
  readonly accounts = new Map<string, string>();
  readonly sent: FakeSms[] = [];
  url = '';
  private close: () => Promise<void> = async () => {};

  /** A new account: its SID (AC + 32 hex) and auth token. */
  addAccount(): { accountSid: string; authToken: string } {
    const accountSid = `AC${hex(16)}`;
    const authToken = hex(16);
    this.accounts.set(accountSid, authToken);
    return { accountSid, authToken };
  }

  async start(): Promise<void> {
    const app = express();
    app.use(express.urlencoded({ extended: false }));
    app.get('/2010-04-01/Accounts/:sid.json', (req, res) => {
      if (!this.authorised(req.params.sid, req.get('authorization'))) return refuse(res);
      res.json({ sid: req.params.sid, friendly_name: 'Fake account', status: 'active' });
    });
    app.post('/2010-04-01/Accounts/:sid/Messages.json', (req, res) => {
      const { sid } = req.params;
      if (!this.authorised(sid, req.get('authorization'))) return refuse(res);
      const form = req.body as Record<string, string>;
      if (!/^\+[1-9]\d{6,14}$/.test(form.To ?? '')) {
        return error(res, 400, 21211, `The 'To' number ${form.To} is not a valid phone number.`);
      }
      if (!form.From && !form.MessagingServiceSid)
        return error(res, 400, 21603, "A 'From' phone number is required.");
      if (!form.Body) return error(res, 400, 21602, 'Message body is required.');
      if (form.To === STOPPED_NUMBER) {
        return error(res, 400, 21610, 'Attempt to send to unsubscribed recipient');
      }
      const message: FakeSms = {
        sid: `SM${hex(16)}`,
        accountSid: sid,
        to: form.To,
        from: form.From ?? null,
        messagingServiceSid: form.MessagingServiceSid ?? null,
        body: form.Body,
        statusCallback: form.StatusCallback ?? null,
      };
      this.sent.push(message);
      res.status(201).json({
        sid: message.sid,
        account_sid: sid,
        to: message.to,
        from: message.from,
        body: message.body,
        status: 'queued',
      });
    });
    await new Promise<void>((resolve) => {
      const server = app.listen(0, '127.0.0.1', () => {
        this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        server.unref();
        this.close = () => new Promise((done) => server.close(() => done()));
        resolve();
      });
    });
  }

  stop(): Promise<void> {
    return this.close();
  }

  private authorised(accountSid: string, header: string | undefined): boolean {
    const token = this.accounts.get(accountSid);
    return (
      token !== undefined && header === `Basic ${Buffer.from(`${accountSid}:${token}`).toString('base64')}`
    );
  }

  /** The delivery report Twilio posts to the message's StatusCallback; `signWith` forges it with another token. */
  report(
    message: FakeSms,
    serviceUrl: string,
    status: string,
    extra: { errorCode?: string; signWith?: string } = {},
  ) {
    const params: Record<string, string> = {
      AccountSid: message.accountSid,
      MessageSid: message.sid,
      MessageStatus: status,
      SmsStatus: status,
      To: message.to,
      From: message.from ?? '',
      ApiVersion: '2010-04-01',
      ...(extra.errorCode ? { ErrorCode: extra.errorCode } : {}),
    };
    const token = extra.signWith ?? (this.accounts.get(message.accountSid) as string);
    return post(message.statusCallback as string, serviceUrl, params, token);
  }

  /** A text someone sends to the number, posted to its incoming-message webhook. */
  inbound(
    account: { accountSid: string; authToken: string },
    webhook: string,
    serviceUrl: string,
    text: { from: string; to: string; body: string },
  ) {
    const params = {
      AccountSid: account.accountSid,
      MessageSid: `SM${hex(16)}`,
      SmsSid: `SM${hex(16)}`,
      From: text.from,
      To: text.to,
      Body: text.body,
      NumMedia: '0',
      ApiVersion: '2010-04-01',
    };
    return post(webhook, serviceUrl, params, account.authToken);
  }
}

/** Signs for the URL Twilio was given, and delivers to the same path on the service under test. */
async function post(signedUrl: string, serviceUrl: string, params: Record<string, string>, token: string) {
  const { pathname, search } = new URL(signedUrl);
  const response = await fetch(`${serviceUrl}${pathname}${search}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': twilioSignature(token, signedUrl, params),
    },
    body: new URLSearchParams(params).toString(),
  });
  return { status: response.status, text: await response.text() };
}

function error(res: express.Response, status: number, code: number, message: string) {
  res.status(status).json({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });
}

function refuse(res: express.Response) {
  error(res, 401, 20003, 'Authenticate');
}

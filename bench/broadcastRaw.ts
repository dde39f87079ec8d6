// The raw figure of bench/broadcast.ts: the messages the broadcast sent, rendered again here with
// the same templates, variables, tracking and headers as the worker's (before the clock starts), then sent
// through one pooled nodemailer transport with as many connections as ours and no reconnects,
// into the same sink. What the engine adds (jobs, claims, outcomes, webhooks) is the difference.
import nodemailer, { type SendMailOptions } from 'nodemailer';
import pg from 'pg';
import type { Config } from '../src/config.ts';
import type { Sink } from './broadcastSink.ts';

/** Sends in flight at once: enough to keep every pooled connection busy. */
const IN_FLIGHT = 100;

type Row = Record<string, unknown> & { template: never; email: string; id: string };

/** The service's modules, imported once the environment is set (configuration reads it). */
async function renderer() {
  const { config } = await import('../src/config.ts');
  const { templateVariables } = await import('../src/messages/index.ts');
  const { renderEmail } = await import('../src/templates/index.ts');
  const { unsubscribeUrl, addTracking } = await import('../src/messages/index.ts');
  const { mailOptions } = await import('../src/channels/email/send.ts');
  return { config: config(), templateVariables, renderEmail, unsubscribeUrl, addTracking, mailOptions };
}

/** Every message of the campaign as nodemailer options, rendered as the worker rendered them. */
export async function renderCampaign(
  databaseUrl: string,
  campaignId: string,
  sender: { fromEmail: string; fromName: string },
): Promise<SendMailOptions[]> {
  const service = await renderer();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const { rows } = await client.query<Row>(
    `select m.*, c.email, c.first_name, c.last_name, c.phone, c.attributes, c.lead_score,
       w.name as workspace_name, cmp.name as campaign_name, null as event_type, null as event_metadata,
       coalesce((w.tracking->>'opens')::boolean, true) and coalesce((cmp.tracking->>'opens')::boolean, true)
         as track_opens,
       coalesce((w.tracking->>'clicks')::boolean, true) and coalesce((cmp.tracking->>'clicks')::boolean, true)
         as track_clicks
     from messages m join contacts c on c.id = m.contact_id join workspaces w on w.id = m.workspace_id
       join campaigns cmp on cmp.id = m.campaign_id
     where m.campaign_id = $1 order by m.id`,
    [campaignId],
  );
  await client.end();
  const settings = { ...sender, replyTo: null } as never;
  return rows.map((row) => {
    const variables = service.templateVariables(
      row as never,
      row as never,
      service.unsubscribeUrl(service.config as Config, row.id),
    );
    // A render a pause holds past the time limit is rendered again by the template kit itself.
    const rendered = service.renderEmail(row.template, variables, `bench:${campaignId}`);
    const unsubscribe = { url: service.unsubscribeUrl(service.config as Config, row.id) };
    // The HTML as the worker sent it: with its tracking links, honeypot and pixel.
    const switches = { opens: row.track_opens as boolean, clicks: row.track_clicks as boolean };
    const html = service.addTracking(service.config, rendered.html, row.id, switches);
    return service.mailOptions(settings, {
      channel: 'email',
      id: row.id,
      to: row.email,
      ...rendered,
      html,
      unsubscribe,
    });
  });
}

/** Sends them all through one pool; resolves with the seconds from the first send to the last accept. */
export async function sendRaw(
  messages: SendMailOptions[],
  sink: Sink,
  maxConnections: number,
): Promise<number> {
  const transport = nodemailer.createTransport({
    pool: true,
    maxConnections,
    maxMessages: Number.POSITIVE_INFINITY,
    host: '127.0.0.1',
    port: sink.port,
    secure: false,
    logger: false,
  });
  sink.reset();
  let next = 0;
  const started = performance.timeOrigin + performance.now();
  const loop = async () => {
    while (next < messages.length) await transport.sendMail(messages[next++]);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, loop));
  transport.close();
  if (sink.count() !== messages.length)
    throw new Error(`raw: the sink accepted ${sink.count()} of ${messages.length}`);
  return (sink.lastAt() - started) / 1000;
}

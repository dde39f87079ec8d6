// bench:console's part-two pages: what they read, at the scale of the million contacts and messages
// (bench/segmentsSeed.ts, bench/messagesSeed.ts). Three forms with their fields and 100,000
// submissions over 30 days (the double opt-in ones confirmed or pending); imports as the console
// leaves them (two finished, one with refused rows, one failed with many, one running, one uploaded
// and waiting for its mapping, its file's first chunk kept); a draft broadcast to the large segment
// (its audience, its builder, its activation page), the seeded broadcast marked as sending since
// its start; and a campaign with a branch on a segment and a split in its else arm, active for 30
// days with 60,000 enrollments (cohorts drawn, some converted), and a draft one with the same flow
// for the builder. Their email steps are Liquid (conditions, filters, a loop). Beside them, the
// `opened` and `clicked` timeline entries the tracking worker writes for the seeded hits people
// made (the reports count people's opens and clicks from them), and an API key and a publishable
// key for their pages.
//
// Each part is found by its fixed id or its name and made only when missing, so that a kept
// database (`--keep`) seeded before this file gains them on its next run without seeding the
// million again. Rows go in with generate_series through the tables' triggers (the campaign
// counters of sql/0060 count the enrollments as the service's writes would).
import type pg from 'pg';
import { createApiKey, listApiKeys } from '../src/apiKeys/service.ts';
import { CreateCampaignBody } from '../src/campaigns/schemas.ts';
import { createCampaign } from '../src/campaigns/service.ts';
import { encodeCursor } from '../src/console/paging.ts';
import type { AppContext } from '../src/core/context.ts';
import { insertForm } from '../src/forms/queries.ts';
import { CreateFormBody } from '../src/forms/schemas.ts';
import { createPublishableKey, listPublishableKeys } from '../src/publicKeys/service.ts';

export type PartTwoSize = {
  workspaceId: string;
  contacts: number;
  /** Form submissions, and the active flow's enrollments. */
  submissions: number;
  enrollments: number;
  days: number;
};

export type PartTwoFixture = {
  forms: string[];
  /** The cursor of a page in the middle of the first form's submissions. */
  submissionCursor: string;
  imports: { finished: string; failed: string; running: string; uploaded: string };
  /** The draft broadcast to the large segment, and the seeded one that is sending. */
  broadcasts: { draft: string; sending: string };
  /** The active campaign with a branch and a split, and its draft twin. */
  flows: { active: string; draft: string };
  /** An API key and a publishable key, for their pages. */
  keys: { api: string; publishable: string };
};

const NEWSLETTER = {
  name: 'Newsletter sign-up',
  fields: [
    { key: 'email', label: 'Email', type: 'email', required: true, mapTo: { contactField: 'email' } },
    { key: 'firstName', label: 'First name', type: 'text', mapTo: { contactField: 'firstName' } },
    { key: 'company', label: 'Company', type: 'text', mapTo: { attribute: 'company' } },
    { key: 'consent', label: 'Send me the newsletter', type: 'checkbox', required: true },
    { key: 'source', label: 'Source', type: 'hidden', value: 'site-footer' },
  ],
  successMessage: 'Thanks {{ firstName | default: "there" }}! Check your inbox to confirm.',
  doubleOptIn: true,
};
const WEBINAR = {
  name: 'Webinar registration',
  fields: [
    { key: 'email', label: 'Work email', type: 'email', required: true, mapTo: { contactField: 'email' } },
    {
      key: 'firstName',
      label: 'First name',
      type: 'text',
      required: true,
      mapTo: { contactField: 'firstName' },
    },
    { key: 'lastName', label: 'Last name', type: 'text', mapTo: { contactField: 'lastName' } },
    { key: 'phone', label: 'Phone', type: 'tel', mapTo: { contactField: 'phone' } },
    { key: 'role', label: 'Role', type: 'text', mapTo: { attribute: 'role' } },
  ],
  successMessage: 'You are registered.',
  doubleOptIn: false,
};
const CONTACT_US = {
  name: 'Contact us',
  fields: [
    { key: 'email', label: 'Email', type: 'email', required: true, mapTo: { contactField: 'email' } },
    { key: 'message', label: 'Message', type: 'text', required: true },
  ],
  doubleOptIn: false,
};
/** The forms, their ids, and the share of the submissions each has (the last one none). */
const FORMS = [
  { id: 'frm_bench_newsletter', body: NEWSLETTER, share: 0.85 },
  { id: 'frm_bench_webinar', body: WEBINAR, share: 0.15 },
  { id: 'frm_bench_contact', body: CONTACT_US, share: 0 },
];

async function seedForms(client: pg.Client, context: AppContext, size: PartTwoSize, made: Set<string>) {
  let first = 1;
  for (const form of FORMS) {
    const count = Math.round(size.submissions * form.share);
    const numbers = { from: first, to: first + count - 1 };
    first += count;
    const found = await client.query(`select 1 from forms where workspace_id = $1 and id = $2`, [
      size.workspaceId,
      form.id,
    ]);
    if (found.rowCount) continue;
    const body = CreateFormBody.parse(form.body);
    await insertForm(context.db, size.workspaceId, form.id, {
      name: body.name,
      fields: body.fields,
      successMessage: body.successMessage ?? null,
      redirectUrl: null,
      doubleOptIn: body.doubleOptIn,
    });
    if (count > 0) await insertSubmissions(client, size, form.id, body.doubleOptIn, numbers);
    made.add('forms').add('form_submissions');
  }
}

/**
 * Submissions numbered `from`..`to`, spread evenly over the days (oldest first), each from a
 * contact of the seed; with double opt-in, 80 % confirmed ten minutes later, the rest pending.
 */
async function insertSubmissions(
  client: pg.Client,
  size: PartTwoSize,
  formId: string,
  doubleOptIn: boolean,
  numbers: { from: number; to: number },
) {
  const count = numbers.to - numbers.from + 1;
  await client.query(
    `insert into form_submissions (workspace_id, id, form_id, contact_id, fields, confirmation, confirmed_at,
                                   confirmation_sent_at, created_at)
     select $1, 'fsub_bench' || lpad(n::text, 9, '0'), $2, 'ct_bench' || lpad(contact::text, 8, '0'),
            jsonb_build_object('email', 'c' || contact || '@example.com', 'firstName', 'Ada',
              'company', 'Company ' || (contact % 997), 'consent', true, 'source', 'site-footer'),
            case when not $5 then 'none' when n % 5 = 0 then 'pending' else 'confirmed' end,
            case when $5 and n % 5 <> 0 then t + interval '10 minutes' end,
            case when $5 then t end, t
     from (select n, 1 + ((n::bigint * 15485863) % $3) as contact,
                  now() - make_interval(days => $4) * (1 - (n - $6 + 0.5) / $7) as t
           from generate_series($6::int, $8::int) as n) as g`,
    [size.workspaceId, formId, size.contacts, size.days, doubleOptIn, numbers.from, count, numbers.to],
  );
}

const IMPORTS = {
  finished: 'imp_bench_contacts_spring',
  failed: 'imp_bench_contacts_broken',
  running: 'imp_bench_events_backfill',
  uploaded: 'imp_bench_contacts_fair',
};
const CSV_COLUMNS = ['email', 'first_name', 'last_name', 'plan', 'country'];
const CSV_TARGETS = ['field:email', 'field:firstName', 'field:lastName', 'attribute', 'attribute'];

/** A CSV file's first chunk, as an upload of `rows` contacts stores it. */
function csvHead(rows: number): Buffer {
  const lines = [CSV_COLUMNS.join(',')];
  for (let n = 1; n <= rows; n++) lines.push(`fair${n}@example.net,Grace,Hopper,pro,SE`);
  return Buffer.from(`${lines.join('\n')}\n`);
}

/**
 * The imports, newest last: a finished contacts CSV with 1,200 refused rows, a finished events
 * NDJSON, a contacts CSV that failed after refusing 20,000 rows, a running events import, and an
 * upload waiting for its mapping. Their files were kept only while they ran (the console deletes
 * the chunks at the end), so only the waiting upload has one.
 */
async function seedImports(client: pg.Client, size: PartTwoSize, made: Set<string>) {
  const found = await client.query(`select 1 from imports where workspace_id = $1 and id = $2`, [
    size.workspaceId,
    IMPORTS.finished,
  ]);
  if (found.rowCount) return;
  await client.query('begin');
  await client.query(
    `insert into imports (workspace_id, id, kind, format, file_name, file_bytes, status, columns, targets,
                          bytes_read, rows_read, imported, refused, summary, error, created_at, started_at, finished_at, phase)
     values
       ($1, $2, 'contacts', 'csv', 'spring-fair-leads.csv', 21500000, 'finished', $6, $7, 21500000, 250000, 248800, 1200,
        '{"created": 180000, "updated": 60000, "unchanged": 8800, "duplicates": 40, "scoreChanges": 12000, "entered": 30000, "exited": 200, "seconds": 94}',
        null, now() - interval '20 days', now() - interval '20 days', now() - interval '20 days' + interval '94 seconds', null),
       ($1, 'imp_bench_events_history', 'events', 'ndjson', 'purchases-2025.ndjson', 64000000, 'finished', '["type", "email", "timestamp", "metadata"]', '[]',
        64000000, 400000, 400000, 0, '{"imported": 398000, "alreadyImported": 2000, "contactsCreated": 1500, "seconds": 210}',
        null, now() - interval '12 days', now() - interval '12 days', now() - interval '12 days' + interval '210 seconds', null),
       ($1, $3, 'contacts', 'csv', 'crm-export-broken.csv', 3100000, 'failed', $6, $7, 3100000, 20400, 0, 20000, null,
        'More than 10,000 rows were refused: the file does not look like contacts. Nothing was imported.',
        now() - interval '5 days', now() - interval '5 days', now() - interval '5 days' + interval '12 seconds', null),
       ($1, $4, 'events', 'ndjson', 'app-events-backfill.ndjson', 900000000, 'running', '["type", "contactId", "timestamp", "metadata"]', '[]',
        410000000, 1800000, 0, 37, null, null, now() - interval '9 minutes', now() - interval '9 minutes', null, 'reading the file'),
       ($1, $5, 'contacts', 'csv', 'autumn-fair.csv', 2400000, 'uploaded', $6, $7, 0, 0, 0, 0, null, null,
        now() - interval '2 minutes', null, null, null)`,
    [
      size.workspaceId,
      IMPORTS.finished,
      IMPORTS.failed,
      IMPORTS.running,
      IMPORTS.uploaded,
      JSON.stringify(CSV_COLUMNS),
      JSON.stringify(CSV_TARGETS),
    ],
  );
  await client.query(
    `insert into import_rejects (workspace_id, import_id, line, reason, raw)
     select $1, $2, 2 + n * 97, case when n % 3 = 0 then 'email: is not a valid address'
              when n % 3 = 1 then 'phone: must be in E.164 form (+ and up to 15 digits)'
              else 'attributes: must hold at most 100 keys' end,
            'lead' || n || (case when n % 3 = 0 then '@' else '@example.com' end) || ',Ada,Lovelace,pro,GB'
     from generate_series(1, 1200) as n`,
    [size.workspaceId, IMPORTS.finished],
  );
  await client.query(
    `insert into import_rejects (workspace_id, import_id, line, reason, raw)
     select $1, $2, 1 + n, 'email: is required (no column goes to the email field)',
            n || ';ACME Corp;;;' || (n % 50) || ';Stockholm;Sweden'
     from generate_series(1, 20000) as n`,
    [size.workspaceId, IMPORTS.failed],
  );
  await client.query(
    `insert into import_rejects (workspace_id, import_id, line, reason, raw)
     select $1, $2, n * 40000, 'timestamp: is not an ISO 8601 date', '{"type":"login","timestamp":"yesterday"}'
     from generate_series(1, 37) as n`,
    [size.workspaceId, IMPORTS.running],
  );
  await client.query(
    `insert into import_file_chunks (workspace_id, import_id, seq, bytes) values ($1, $2, 0, $3)`,
    [size.workspaceId, IMPORTS.uploaded, csvHead(20_000)],
  );
  await client.query('commit');
  made.add('imports').add('import_rejects');
}

/** An email step whose subject and body are Liquid: a fallback, a condition on an attribute, a loop. */
const LIQUID_STEP = (subject: string) => ({
  type: 'send',
  channel: 'email',
  subject: `{{ contact.firstName | default: "Hello" }}, ${subject}`,
  preheader: '{% if contact.leadScore > 50 %}A little extra for you{% else %}News from us{% endif %}',
  body: `<p>Hi {{ contact.firstName | default: "there" }},</p>
{% if contact.attributes.plan == "enterprise" %}<p>Your account manager will call you this week.</p>
{% elsif contact.attributes.plan == "free" %}<p>Upgrade to <strong>Pro</strong> for 20 % off this month.</p>
{% else %}<p>Thanks for being a {{ contact.attributes.plan | upcase }} customer.</p>{% endif %}
<ul>{% for n in (1..3) %}<li><a href="https://bench.example/guide/{{ n }}?c={{ contact.attributes.country | downcase }}">Guide {{ n }}</a></li>{% endfor %}</ul>
<p>{{ campaign.name }} · <a href="{{ unsubscribe_url }}">Unsubscribe</a></p>`,
});

/** Send, wait a day, then: buyers get a thank-you; the others one of two offers, drawn 50/50. */
const FLOW_STEPS = [
  LIQUID_STEP('welcome aboard'),
  { type: 'wait', duration: 'P1D' },
  {
    type: 'branch',
    if: { segment: 'seg_bench_bought' },
    // biome-ignore lint/suspicious/noThenProperty: the branch step's arms are named then and else
    then: [LIQUID_STEP('thank you for your order')],
    else: [
      {
        type: 'split',
        paths: [
          { weight: 50, steps: [LIQUID_STEP('10 % off your first order')] },
          { weight: 50, steps: [{ type: 'wait', duration: 'PT4H' }, LIQUID_STEP('free shipping this week')] },
        ],
      },
    ],
  },
];

const DRAFT_BROADCAST = 'Autumn launch';
const ACTIVE_FLOW = 'Trial nurture';
const DRAFT_FLOW = 'Trial nurture v2';
/** The seeded broadcast of bench/messagesSeed.ts. */
const SENDING_BROADCAST = 'Spring news';

async function campaignNamed(client: pg.Client, workspaceId: string, name: string) {
  const { rows } = await client.query<{ id: string }>(
    `select id from campaigns where workspace_id = $1 and name = $2 order by created_at limit 1`,
    [workspaceId, name],
  );
  return rows[0]?.id ?? null;
}

async function ensureCampaign(
  client: pg.Client,
  context: AppContext,
  workspaceId: string,
  definition: object,
) {
  const input = CreateCampaignBody.parse(definition);
  const found = await campaignNamed(client, workspaceId, input.name);
  if (found) return found;
  return (await createCampaign(context.db, workspaceId, input as never)).id;
}

/**
 * The active flow's enrollments, evenly over the days: 60 % of them (those not in the segment when
 * they reached the branch) drew a path of the split, the second converting a little more often
 * (10 % against 7 %); the rest completed, are still active, or exited.
 */
async function seedFlowEnrollments(
  client: pg.Client,
  size: PartTwoSize,
  campaignId: string,
  count: number,
  made: Set<string>,
) {
  const found = await client.query(
    `select 1 from enrollments where workspace_id = $1 and campaign_id = $2 limit 1`,
    [size.workspaceId, campaignId],
  );
  if (found.rowCount) return;
  await client.query(
    `insert into enrollments (workspace_id, id, campaign_id, contact_id, status, current_step, step_key, cohorts,
                              enrolled_at, completed_at, exit_reason)
     select $1, 'enr_bench_flow' || lpad(n::text, 8, '0'), $2, 'ct_bench' || lpad((1 + (n::bigint * 104729) % $3)::text, 8, '0'),
            status, case when status = 'active' then 1 else 3 end, case when status = 'active' then '1' end,
            case when arm is null or status = 'active' then '{}'::jsonb else jsonb_build_object('2.else.0', arm) end,
            t, case when status in ('completed', 'converted', 'exited') then t + interval '1 day 5 hours' end,
            case status when 'exited' then 'manual' when 'converted' then 'goal' end
     from (select n, t, arm,
                  case when t > now() - interval '1 day' then 'active'
                       when arm = 0 and n % 100 < 7 then 'converted' when arm = 1 and n % 100 < 10 then 'converted'
                       when n % 50 = 1 then 'exited' else 'completed' end as status
           from (select n, now() - make_interval(days => $4) * (1 - (n - 0.5) / $5) as t,
                        case when n % 10 < 4 then null else n % 2 end as arm
                 from generate_series(1, $5) as n) as s) as g`,
    [size.workspaceId, campaignId, size.contacts, size.days, count],
  );
  made.add('enrollments');
}

async function seedCampaigns(client: pg.Client, context: AppContext, size: PartTwoSize, made: Set<string>) {
  const draft = await ensureCampaign(client, context, size.workspaceId, {
    name: DRAFT_BROADCAST,
    trigger: { type: 'broadcast', segmentId: 'seg_bench_bought' },
    steps: [LIQUID_STEP('our autumn collection is here')],
  });
  const definition = {
    trigger: { type: 'event', eventType: 'signup' },
    goal: { eventType: 'purchase' },
    steps: FLOW_STEPS,
  };
  const active = await ensureCampaign(client, context, size.workspaceId, {
    name: ACTIVE_FLOW,
    ...definition,
  });
  const draftFlow = await ensureCampaign(client, context, size.workspaceId, {
    name: DRAFT_FLOW,
    ...definition,
  });
  await client.query(
    `update campaigns set status = 'active', activated_at = now() - make_interval(days => $3 + 1)
     where workspace_id = $1 and id = $2 and status = 'draft'`,
    [size.workspaceId, active, size.days],
  );
  await seedFlowEnrollments(client, size, active, size.enrollments, made);
  // The seeded broadcast sent its messages over the days (1 % are still queued): it is sending.
  const sending = await campaignNamed(client, size.workspaceId, SENDING_BROADCAST);
  if (!sending) throw new Error(`the seed has no campaign named ${SENDING_BROADCAST}`);
  await client.query(
    `update campaigns set broadcast_started_at = activated_at, broadcast_done_at = activated_at + interval '20 minutes'
     where workspace_id = $1 and id = $2 and broadcast_started_at is null`,
    [size.workspaceId, sending],
  );
  return { broadcasts: { draft, sending }, flows: { active, draft: draftFlow } };
}

const KEY_NAME = 'Bench website';

/** An API key for the site's back end and a publishable key for its pages, made through their services. */
async function seedKeys(context: AppContext, workspaceId: string) {
  const api =
    (await listApiKeys(context.db, workspaceId)).find((key) => key.name === KEY_NAME) ??
    (await createApiKey(context.db, workspaceId, {
      name: KEY_NAME,
      scopes: ['contacts:read', 'events:read'],
      createdBy: null,
    }));
  const publishable =
    (await listPublishableKeys(context.db, workspaceId)).find((key) => key.name === KEY_NAME) ??
    (await createPublishableKey(context.db, workspaceId, {
      name: KEY_NAME,
      allowedOrigins: ['https://bench.example'],
      allowedEventTypes: ['page_view', 'signup'],
      createdBy: null,
    }));
  return { api: api.id, publishable: publishable.id };
}

/**
 * The timeline entries the tracking worker writes for hits it counts (src/tracking/process.ts): an
 * `opened` entry for a message's first open by a person, a `clicked` one for its first click by a
 * person on each link. bench/messagesSeed.ts made the hits without them; the reports count people's
 * opens and clicks from these.
 */
async function seedTrackingTimeline(client: pg.Client, workspaceId: string, made: Set<string>) {
  const found = await client.query(
    `select 1 from message_hits h
     where h.workspace_id = $1 and h.human and h.kind = 'open'
       and exists (select 1 from message_events e where e.message_id = h.message_id and e.type = 'opened')
     limit 1`,
    [workspaceId],
  );
  if (found.rowCount) return;
  await client.query(
    `insert into message_events (workspace_id, message_id, type, detail, occurred_at)
     select h.workspace_id, h.message_id, case h.kind when 'open' then 'opened' else 'clicked' end,
            case h.kind when 'open' then jsonb_build_object('hitId', h.id)
              else jsonb_build_object('hitId', h.id, 'url', h.url) end, h.occurred_at
     from (select distinct on (message_id, kind, url) * from message_hits
           where workspace_id = $1 and human and kind in ('open', 'click')
           order by message_id, kind, url, occurred_at, id) h
     order by h.occurred_at`,
    [workspaceId],
  );
  made.add('message_events');
}

/** Seeds what is missing of part two; returns the ids the pages are loaded with. */
export async function seedPartTwo(
  client: pg.Client,
  context: AppContext,
  size: PartTwoSize,
): Promise<PartTwoFixture> {
  const made = new Set<string>();
  await seedForms(client, context, size, made);
  await seedImports(client, size, made);
  await seedTrackingTimeline(client, size.workspaceId, made);
  const campaigns = await seedCampaigns(client, context, size, made);
  if (made.size) await client.query(`vacuum (analyze) campaigns, ${[...made].join(', ')}`);
  return {
    forms: FORMS.map((form) => form.id),
    submissionCursor: await middleOfSubmissions(client, size.workspaceId, FORMS[0]!.id),
    imports: IMPORTS,
    ...campaigns,
    keys: await seedKeys(context, size.workspaceId),
  };
}

/** The position (created_at, id) of the form's submission halfway down its list, as a page's cursor. */
async function middleOfSubmissions(client: pg.Client, workspaceId: string, formId: string) {
  const { rows } = await client.query<{ at: string; id: string }>(
    `select to_json(created_at) #>> '{}' as at, id from form_submissions
     where workspace_id = $1 and form_id = $2
     order by created_at desc, id desc offset (select count(*) / 2 from form_submissions
       where workspace_id = $1 and form_id = $2) limit 1`,
    [workspaceId, formId],
  );
  return encodeCursor(rows[0] ? [rows[0].at, rows[0].id] : []);
}

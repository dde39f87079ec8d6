// bench:console's pages of part two and the rest of the console's GET pages: the report pages and
// their CSV exports, the campaign builder, a send step's template editor and its preview, a
// broadcast's audience and progress, the lifecycle confirmations, forms, imports, channels and the
// pages that read nothing much (new-item forms, settings). Each with its bare query as the page
// runs it (bench/support/consolePage.ts). The fixture's part two is bench/partTwoSeed.ts.
import { listApiKeys } from '../src/apiKeys/service.ts';
import { audienceNow } from '../src/campaigns/audienceStore.ts';
import { segmentNamesOf, stepFiguresOf } from '../src/campaigns/consoleQueries.ts';
import {
  attributeNamesSeen,
  eventMetadataNamesSeen,
  latestEventOf,
} from '../src/campaigns/consoleTemplateQueries.ts';
import { stepAt } from '../src/campaigns/flow.ts';
import { readPacing } from '../src/campaigns/pacing.ts';
import { renderStep } from '../src/campaigns/preview.ts';
import { readProgressRow } from '../src/campaigns/progress.ts';
import { campaignReport, campaignSplits } from '../src/campaigns/report.ts';
import { ReportQuery } from '../src/campaigns/reportPeriod.ts';
import { campaignPeriodReport, workspaceReport } from '../src/campaigns/reportSeries.ts';
import type { SendStep } from '../src/campaigns/schemas.ts';
import { requireCampaign, toCampaign } from '../src/campaigns/service.ts';
import type { ConfigurableChannel } from '../src/channels/console.ts';
import { CHANNEL_REGISTRY } from '../src/channels/registry.ts';
import { findContact, getContact, searchContacts } from '../src/contacts/index.ts';
import type { AppContext } from '../src/core/context.ts';
import { recentSubmissionCounts, submissionPageOf } from '../src/forms/consoleQueries.ts';
import { getForm, listFormsOf } from '../src/forms/service.ts';
import { HEAD_BYTES } from '../src/imports/preview.ts';
import { fileHead, findImport, listImports, rejectsAfter } from '../src/imports/uploadQueries.ts';
import { listPublishableKeys } from '../src/publicKeys/service.ts';
import { listSegmentNames } from '../src/segments/consoleQueries.ts';
import { explainMembership } from '../src/segments/explain.ts';
import { findMembershipsOfContact, listMembersAfter, segmentVersion } from '../src/segments/queries.ts';
import { getSegment, listSegmentPage } from '../src/segments/service.ts';
import { contactId, type Fixture, type Page, queryOf, segmentOf, spread } from './support/consolePage.ts';

/** Contacts spread over the seeded ones. */
const someContacts = (f: Fixture, count: number) => spread(f, count).map(contactId);

// ---- reports ----

const PERIODS = { day: 'period=30d&bucket=day', hour: 'period=30d&bucket=hour' };

/** The campaigns with a report worth reading: those with messages, and the flow with a split. */
const reportedCampaigns = (f: Fixture) => [...f.campaigns.map((c) => c.id), f.partTwo.flows.active];

/** The campaign report page's queries (and its export's): the period's figures and the splits. */
function campaignPeriod(context: AppContext, f: Fixture, path: string) {
  const id = segmentOf(path, 1);
  const query = ReportQuery.parse(queryOf(path));
  return Promise.all([
    campaignPeriodReport(context.db, f.workspaceId, id, query),
    campaignSplits(context.db, f.workspaceId, id),
  ]);
}

const workspacePeriod = (context: AppContext, f: Fixture, path: string) =>
  workspaceReport(context.db, f.workspaceId, ReportQuery.parse(queryOf(path)));

const reportPages = (bucket: keyof typeof PERIODS): Page[] => [
  {
    name: `reports: a campaign's, 30 days by ${bucket}`,
    paths: (f) => reportedCampaigns(f).map((id) => `/campaigns/${id}/report?${PERIODS[bucket]}`),
    bare: campaignPeriod,
  },
  {
    name: `reports: a campaign's CSV, 30 days by ${bucket}`,
    paths: (f) => reportedCampaigns(f).map((id) => `/campaigns/${id}/report/export?${PERIODS[bucket]}`),
    bare: campaignPeriod,
  },
  {
    name: `reports: the workspace's, 30 days by ${bucket}`,
    paths: () => [`/reports?${PERIODS[bucket]}`],
    bare: workspacePeriod,
  },
  {
    name: `reports: the workspace's CSV, 30 days by ${bucket}`,
    paths: () => [`/reports/export?${PERIODS[bucket]}`],
    bare: workspacePeriod,
  },
];

// ---- campaigns: builder, editor, template, audience, progress, confirmations ----

/** The builder of a draft: the campaign, the segments to choose from and the pacing. */
async function builder(context: AppContext, f: Fixture, path: string) {
  const id = segmentOf(path, 1);
  return Promise.all([
    id === 'new' ? null : requireCampaign(context.db, f.workspaceId, id),
    listSegmentNames(context.db, f.workspaceId),
    readPacing(context.db, f.workspaceId),
  ]);
}

/** A campaign's send steps' template editors: the branching flow's nested ones among them. */
const templatePaths = (f: Fixture) => [
  `/campaigns/${f.partTwo.flows.active}/steps/0/template`,
  `/campaigns/${f.partTwo.flows.draft}/steps/2.else.0.paths.1.1/template`,
  `/campaigns/${f.partTwo.broadcasts.draft}/steps/0/template`,
  `/campaigns/${f.partTwo.flows.active}/steps/2.then.0/template`,
];

/**
 * The template editor's queries: the campaign, the picked contact and its preview (the trigger's
 * latest event of the contact, the rendering's own reads), a contact search, and the variables'
 * names from the newest contacts and the trigger's latest events.
 */
async function templateEditor(context: AppContext, f: Fixture, path: string) {
  const campaign = toCampaign(await requireCampaign(context.db, f.workspaceId, segmentOf(path, 1)));
  const step = stepAt(campaign.steps, segmentOf(path, 3)) as SendStep;
  const query = queryOf(path);
  const eventType = campaign.trigger.type === 'event' ? campaign.trigger.eventType : null;
  const contact = query.contact ? await findContact(context.db, f.workspaceId, query.contact) : null;
  const preview = contact
    ? renderStep(context, f.workspaceId, step, {
        campaignId: campaign.id,
        contactId: contact.id,
        triggerEventId: eventType
          ? await latestEventOf(context.db, f.workspaceId, contact.id, eventType)
          : null,
      })
    : null;
  return Promise.all([
    preview,
    query.q
      ? searchContacts(context.db, f.workspaceId, { q: query.q }, { sort: 'newest', after: null, limit: 10 })
      : null,
    attributeNamesSeen(context.db, f.workspaceId),
    eventType ? eventMetadataNamesSeen(context.db, f.workspaceId, eventType) : null,
  ]);
}

/** A lifecycle confirmation's queries: the report (people in the flow), names, a draft broadcast's audience. */
async function confirmation(context: AppContext, f: Fixture, path: string) {
  const campaign = toCampaign(await requireCampaign(context.db, f.workspaceId, segmentOf(path, 1)));
  const trigger = campaign.trigger;
  const segments = trigger.type === 'event' ? [] : [trigger.segmentId];
  return Promise.all([
    campaignReport(context.db, f.workspaceId, campaign.id),
    segmentNamesOf(context.db, f.workspaceId, segments),
    trigger.type === 'broadcast' && campaign.status === 'draft'
      ? segmentVersion(context.db, f.workspaceId, trigger.segmentId).then((segment) => segment?.members ?? 0)
      : null,
  ]);
}

const campaignOnly = (context: AppContext, f: Fixture, path: string) =>
  requireCampaign(context.db, f.workspaceId, segmentOf(path, 1));

const CAMPAIGN_PAGES: Page[] = [
  {
    name: "campaigns: a campaign's page, branch and split",
    paths: (f) =>
      [f.partTwo.flows.active, f.partTwo.flows.draft, f.partTwo.broadcasts.draft].map(
        (id) => `/campaigns/${id}`,
      ),
    bare: (context, f, path) =>
      Promise.all([
        campaignReport(context.db, f.workspaceId, segmentOf(path, 1)),
        stepFiguresOf(context.db, f.workspaceId, segmentOf(path, 1)),
      ]),
  },
  { name: 'campaigns: builder, new', paths: () => ['/campaigns/new/form'], bare: builder },
  {
    name: 'campaigns: builder of a draft (branch, split; broadcast)',
    paths: (f) => [f.partTwo.flows.draft, f.partTwo.broadcasts.draft].map((id) => `/campaigns/${id}/form`),
    bare: builder,
  },
  {
    name: 'campaigns: builder of an active campaign',
    paths: (f) => [f.partTwo.flows.active, f.partTwo.broadcasts.sending].map((id) => `/campaigns/${id}/form`),
    bare: campaignOnly,
  },
  { name: 'campaigns: JSON editor, new', paths: () => ['/campaigns/new'] },
  {
    name: 'campaigns: JSON editor of a campaign',
    paths: (f) => [f.partTwo.flows.draft, f.partTwo.flows.active].map((id) => `/campaigns/${id}/edit`),
    bare: campaignOnly,
  },
  { name: 'campaigns: template editor of a send step', paths: templatePaths, bare: templateEditor },
  {
    name: 'campaigns: template editor, preview for a contact',
    paths: (f) => templatePaths(f).flatMap((path) => someContacts(f, 5).map((id) => `${path}?contact=${id}`)),
    bare: templateEditor,
  },
  {
    name: 'campaigns: template editor, contact search',
    paths: (f) => ['grace', 'c1234', 'kowalski'].map((q) => `${templatePaths(f)[0]}?q=${q}`),
    bare: templateEditor,
  },
  {
    name: "campaigns: a broadcast's audience",
    paths: (f) => [`/campaigns/${f.partTwo.broadcasts.draft}/audience`],
    // As the page: counted on the spot up to CAMPAIGN_AUDIENCE_LIVE_LIMIT members, else the kept count.
    bare: (context, f, path) => audienceNow(context, f.workspaceId, segmentOf(path, 1)),
  },
  {
    name: "campaigns: a broadcast's progress",
    paths: (f) => [`/campaigns/${f.partTwo.broadcasts.sending}/progress`],
    bare: (context, f, path) => readProgressRow(context.db, f.workspaceId, segmentOf(path, 1)),
  },
  {
    name: 'campaigns: activate a draft broadcast?',
    paths: (f) => [`/campaigns/${f.partTwo.broadcasts.draft}/activate`],
    bare: confirmation,
  },
  {
    name: 'campaigns: pause or archive an active one?',
    paths: (f) =>
      [f.partTwo.flows.active, f.partTwo.broadcasts.sending].flatMap((id) => [
        `/campaigns/${id}/pause`,
        `/campaigns/${id}/archive`,
      ]),
    bare: confirmation,
  },
];

// ---- forms ----

const FORM_PAGE_ROWS = 51; // src/forms/consolePages.ts: 50 a page, and one to know there are more

const formPage = (context: AppContext, f: Fixture, path: string) =>
  getForm(context.db, context.config, f.workspaceId, segmentOf(path, 1)).then((form) =>
    submissionPageOf(
      context.db,
      f.workspaceId,
      form.id,
      queryOf(path).after
        ? JSON.parse(Buffer.from(queryOf(path).after!, 'base64url').toString('utf8'))
        : null,
      FORM_PAGE_ROWS,
    ),
  );

const FORM_PAGES: Page[] = [
  {
    name: 'forms: list (30-day submissions)',
    paths: () => ['/forms'],
    bare: async (context, f) => {
      const forms = await listFormsOf(context.db, context.config, f.workspaceId);
      return recentSubmissionCounts(
        context.db,
        f.workspaceId,
        forms.map((form) => form.id),
        30,
      );
    },
  },
  { name: 'forms: new', paths: () => ['/forms/new'] },
  {
    name: "forms: a form's page (fields, submissions)",
    paths: (f) => f.partTwo.forms.map((id) => `/forms/${id}`),
    bare: formPage,
  },
  {
    name: "forms: a form's submissions, a page in the middle",
    paths: (f) => [`/forms/${f.partTwo.forms[0]}?after=${f.partTwo.submissionCursor}`],
    bare: formPage,
  },
  {
    name: 'forms: edit, delete?',
    paths: (f) => [`/forms/${f.partTwo.forms[0]}/edit`, `/forms/${f.partTwo.forms[1]}/delete`],
    bare: (context, f, path) => getForm(context.db, context.config, f.workspaceId, segmentOf(path, 1)),
  },
];

// ---- imports ----

const IMPORT_LIST_ROWS = 51; // src/imports/consolePages.ts: LIST_LIMIT + 1
const SHOWN_REJECTS = 100; // src/imports/consolePages.ts

/** An import's page: the row, then its refused rows (ended) or its file's first chunk (waiting for its mapping). */
async function importPage(context: AppContext, f: Fixture, path: string) {
  const row = await findImport(context.db, f.workspaceId, segmentOf(path, 1));
  if (row?.status === 'uploaded') return fileHead(context.db, f.workspaceId, row.id, HEAD_BYTES);
  if (row?.refused) return rejectsAfter(context.db, f.workspaceId, row.id, 0, SHOWN_REJECTS);
  return row;
}

/** The refused rows' download: every one, a thousand at a time. */
async function allRejects(context: AppContext, f: Fixture, path: string) {
  const id = segmentOf(path, 1);
  await findImport(context.db, f.workspaceId, id);
  let count = 0;
  for (let after = 0; ; ) {
    const page = await rejectsAfter(context.db, f.workspaceId, id, after, 1000);
    if (page.length === 0) return count;
    count += page.length;
    after = page.at(-1)!.line;
  }
}

const IMPORT_PAGES: Page[] = [
  {
    name: 'imports: list',
    paths: () => ['/imports'],
    bare: (context, f) => listImports(context.db, f.workspaceId, null, IMPORT_LIST_ROWS),
  },
  {
    name: "imports: an import's page (outcome, refused rows; mapping)",
    paths: (f) => Object.values(f.partTwo.imports).map((id) => `/imports/${id}`),
    bare: importPage,
  },
  {
    name: "imports: a running import's progress",
    paths: (f) => [`/imports/${f.partTwo.imports.running}/progress`],
    bare: (context, f, path) => findImport(context.db, f.workspaceId, segmentOf(path, 1)),
  },
  {
    name: 'imports: refused rows download (20,000)',
    paths: (f) => [`/imports/${f.partTwo.imports.failed}/rejects`],
    bare: allRejects,
  },
];

// ---- segments, settings and the rest ----

const OTHER_PAGES: Page[] = [
  { name: 'segments: new', paths: () => ['/segments/new'] },
  {
    name: 'segments: edit (its kept members)',
    paths: () => ['/segments/seg_bench_bought/edit', '/segments/seg_bench_new/edit'],
    bare: async (context, f, path) => {
      const segment = await getSegment(context.db, f.workspaceId, segmentOf(path, 1));
      return listMembersAfter(context.db, f.workspaceId, segment.id, null, 5);
    },
  },
  {
    name: "segments: a contact's segments",
    paths: (f) => someContacts(f, 20).map((id) => `/contacts/${id}/segments`),
    bare: async (context, f, path) => {
      const contact = await getContact(context.db, f.workspaceId, segmentOf(path, 1));
      return Promise.all([
        listSegmentPage(context.db, f.workspaceId, { page: 1, limit: 200 }),
        findMembershipsOfContact(context.db, f.workspaceId, contact.id),
      ]);
    },
  },
  {
    name: 'segments: why a contact is in or out',
    paths: (f) =>
      someContacts(f, 10).flatMap((id) => [
        `/contacts/${id}/segments/seg_bench_bought/why`,
        `/contacts/${id}/segments/seg_bench_new/why`,
      ]),
    bare: async (context, f, path) => {
      const result = await explainMembership(
        context.db,
        f.workspaceId,
        segmentOf(path, 1),
        segmentOf(path, 3),
      );
      return getContact(context.db, f.workspaceId, result.contactId);
    },
  },
  { name: 'webhooks: new', paths: () => ['/webhooks/new'] },
  {
    name: 'settings: channels',
    paths: () => ['/settings/channels'],
    bare: (context, f) =>
      Promise.all(
        (CHANNEL_REGISTRY as readonly ConfigurableChannel[]).map((channel) =>
          channel.settings.load(context, f.workspaceId),
        ),
      ),
  },
  {
    name: 'settings: publishable keys',
    paths: () => ['/settings/publishable'],
    bare: (context, f) => listPublishableKeys(context.db, f.workspaceId),
  },
  {
    name: 'settings: a publishable key',
    paths: (f) => [`/settings/publishable/${f.partTwo.keys.publishable}`],
    bare: (context, f) => listPublishableKeys(context.db, f.workspaceId),
  },
  {
    name: 'settings: rotate the identity secret?',
    paths: () => ['/settings/publishable/identity-secret/rotate'],
  },
  {
    name: 'settings: revoke an API key?',
    paths: (f) => [`/settings/keys/${f.partTwo.keys.api}/revoke`],
    bare: (context, f) => listApiKeys(context.db, f.workspaceId),
  },
  { name: 'settings: workspace', paths: () => ['/settings/workspace'] },
  { name: 'account', paths: () => ['/app/account'] },
  { name: 'a new workspace', paths: () => ['/app/new'] },
];

export const PART_TWO_PAGES: Page[] = [
  ...reportPages('day'),
  ...reportPages('hour'),
  ...CAMPAIGN_PAGES,
  ...FORM_PAGES,
  ...IMPORT_PAGES,
  ...OTHER_PAGES,
];

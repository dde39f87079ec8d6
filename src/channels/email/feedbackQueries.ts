// SQL for the provider feedback endpoints of a workspace's email channel: one per provider. Every
// query filters by workspace first except `findFeedbackEndpointById`, the public receiver's
// lookup: the endpoint id in the URL is all a provider sends.
import { z } from 'zod';
import { newId } from '../../db/ids.ts';
import { type Db, sql } from '../../db/pool.ts';
import { StoredSecret } from '../../secrets/index.ts';

export const FEEDBACK_PROVIDERS = ['ses', 'sendgrid', 'postmark'] as const;
export type FeedbackProvider = (typeof FEEDBACK_PROVIDERS)[number];

export const FeedbackEndpointRow = z.object({
  workspace_id: z.string(),
  id: z.string(),
  provider: z.enum(FEEDBACK_PROVIDERS),
  settings: z.record(z.string(), z.unknown()),
  secrets: z.record(z.string(), StoredSecret),
  created_at: z.string(),
  updated_at: z.string(),
});
export type FeedbackEndpointRow = z.infer<typeof FeedbackEndpointRow>;

const columns = sql.fragment`workspace_id, id, provider, settings, secrets, created_at, updated_at`;

export async function listFeedbackEndpoints(db: Db, workspaceId: string) {
  return db.any(sql.type(FeedbackEndpointRow)`
    select ${columns} from email_feedback_endpoints where workspace_id = ${workspaceId} order by provider
  `);
}

export async function findFeedbackEndpoint(db: Db, workspaceId: string, provider: FeedbackProvider) {
  return db.maybeOne(sql.type(FeedbackEndpointRow)`
    select ${columns} from email_feedback_endpoints
    where workspace_id = ${workspaceId} and provider = ${provider}
  `);
}

export async function findFeedbackEndpointById(db: Db, endpointId: string) {
  return db.maybeOne(sql.type(FeedbackEndpointRow)`
    select ${columns} from email_feedback_endpoints where id = ${endpointId}
  `);
}

/** Which providers report back for the workspace: each send carries what they echo. */
export async function listFeedbackProviders(db: Db, workspaceId: string): Promise<FeedbackProvider[]> {
  const rows = await db.anyFirst(sql.type(z.object({ provider: z.enum(FEEDBACK_PROVIDERS) }))`
    select provider from email_feedback_endpoints where workspace_id = ${workspaceId}
  `);
  return [...rows];
}

/** Creates or replaces the provider's endpoint; a replacement keeps its id, so its URL stays valid. */
export async function upsertFeedbackEndpoint(
  db: Db,
  input: {
    workspaceId: string;
    provider: FeedbackProvider;
    settings: Record<string, unknown>;
    secrets: Record<string, StoredSecret>;
  },
) {
  return db.one(sql.type(FeedbackEndpointRow)`
    insert into email_feedback_endpoints (workspace_id, id, provider, settings, secrets)
    values (${input.workspaceId}, ${newId('feedbackEndpoint')}, ${input.provider},
            ${sql.jsonb(input.settings as never)}, ${sql.jsonb(input.secrets as never)})
    on conflict (workspace_id, provider) do update
      set settings = excluded.settings, secrets = excluded.secrets, updated_at = now()
    returning ${columns}
  `);
}

export async function deleteFeedbackEndpoint(db: Db, workspaceId: string, provider: FeedbackProvider) {
  const result = await db.query(sql.typeAlias('void')`
    delete from email_feedback_endpoints where workspace_id = ${workspaceId} and provider = ${provider}
  `);
  return result.rowCount > 0;
}

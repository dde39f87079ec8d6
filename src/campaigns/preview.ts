// A send step rendered for one contact as its message would be (same variables, same templates
// kit), without making or sending anything: an email's subject, HTML and text, a push's title,
// body, URL and icon, a Telegram text. A template error is a 400 naming the step, the part
// (subject, html, text, title, body, url, icon) and the line. The console's template editor renders
// a step as edited (not yet saved) through renderStep, and builds its test sends with it.
import type { AppContext } from '../core/context.ts';
import { NotFoundError, ValidationError } from '../core/errors.ts';
import { buildOutgoing, findDeliveryContext, templateVariables } from '../messages/index.ts';
import { TemplateError } from '../templates/index.ts';
import { templateOf } from './engine.ts';
import { stepAt } from './flow.ts';
import type { SendStep } from './schemas.ts';
import { requireCampaign } from './service.ts';

export type StepRender = {
  campaignId: string;
  contactId: string;
  /** The event the message would carry (the contact's latest of the trigger's type), or null. */
  triggerEventId?: string | null;
  /** The message's id in the rendering (links are signed for it): a test send's own id. */
  messageId?: string;
};

/**
 * The step as `contactId` would get it: what would go to the provider and what the message row
 * would keep, and the variables it saw (the unsubscribe link left out: it is signed per message).
 * Throws a TemplateError (its field, line and column say where), or NotFoundError
 * when the contact is not in the workspace.
 */
export async function renderStep(app: AppContext, workspaceId: string, step: SendStep, input: StepRender) {
  const context = await findDeliveryContext(app.db, {
    workspace_id: workspaceId,
    contact_id: input.contactId,
    campaign_id: input.campaignId,
    trigger_event_id: input.triggerEventId ?? null,
  });
  if (!context) throw new NotFoundError('Contact');
  // Only the fields rendering reads: the channel, template, data (none), campaign and an id for links.
  const message = {
    id: input.messageId ?? 'msg_preview',
    channel: step.channel,
    template: templateOf(step),
    campaign_id: input.campaignId,
    data: {},
  } as never;
  return {
    ...buildOutgoing(app, message, context, true),
    variables: templateVariables(message, context, ''),
  };
}

export async function previewStep(
  app: AppContext,
  workspaceId: string,
  campaignId: string,
  input: { contactId: string; step: string },
) {
  const campaign = await requireCampaign(app.db, workspaceId, campaignId);
  const step = stepAt(campaign.steps, input.step);
  if (step?.type !== 'send') {
    throw new ValidationError([
      { path: 'step', message: `must be the key of a send step of this campaign ("0", "2.then.1" …)` },
    ]);
  }
  try {
    const { rendered } = await renderStep(app, workspaceId, step, { campaignId, contactId: input.contactId });
    return { stepKey: input.step, ...rendered };
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    throw new ValidationError([
      {
        path: 'step',
        message: `step ${input.step}, ${error.field ?? 'template'}, line ${error.line}, column ${error.column}: ${error.message}`,
      },
    ]);
  }
}

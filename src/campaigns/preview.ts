// A send step rendered for one contact as its message would be (same variables, same templates
// kit), without making or sending anything: an email's subject, HTML and text, a push's title,
// body, URL and icon, a Telegram text. A template error is a 400 naming the step, the part
// (subject, html, text, title, body, url, icon) and the line.
import type { AppContext } from '../core/context.ts';
import { NotFoundError, ValidationError } from '../core/errors.ts';
import { findDeliveryContext, renderMessage } from '../messages/index.ts';
import { TemplateError } from '../templates/index.ts';
import { templateOf } from './engine.ts';
import { stepAt } from './flow.ts';
import { requireCampaign } from './service.ts';

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
  const context = await findDeliveryContext(app.db, {
    workspace_id: workspaceId,
    contact_id: input.contactId,
    campaign_id: campaignId,
    trigger_event_id: null,
  });
  if (!context) throw new NotFoundError('Contact');
  // Only the fields rendering reads: the channel, template, data (none), campaign and an id for links.
  const message = {
    id: 'msg_preview',
    channel: step.channel,
    template: templateOf(step),
    campaign_id: campaignId,
    data: {},
  } as never;
  try {
    return { stepKey: input.step, ...renderMessage(app, message, context) };
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

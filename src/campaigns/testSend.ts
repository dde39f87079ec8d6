// A send step's test: rendered for a contact picked in the template editor, then sent through the
// workspace's real channel to an address typed there (the channel's TestSend re-addresses it and
// marks it "[Test]"). No message row is made: it is in no report, no contact's history and no
// tracking, and its links are signed for an id no message has (its unsubscribe link unsubscribes
// nobody). Each person may send TEST_SENDS_PER_WINDOW of them per TEST_SEND_WINDOW_MS, across
// workspaces, counted from the audit log that records every attempt.
import { countRecentActions, lockUserActions, recordAudit } from '../audit/index.ts';
import { channelNamed, type SendOutcome } from '../channels/index.ts';
import type { AppContext } from '../core/context.ts';
import { ConflictError, RateLimitedError, ValidationError } from '../core/errors.ts';
import { ulid } from '../db/ids.ts';
import { renderStep } from './preview.ts';
import type { SendStep } from './schemas.ts';

export const TEST_SENDS_PER_WINDOW = 10;
export const TEST_SEND_WINDOW_MS = 10 * 60_000;

export type TestSendInput = {
  userId: string;
  campaignId: string;
  stepKey: string;
  step: SendStep;
  contactId: string;
  triggerEventId: string | null;
  to: string;
};

/** The address checked by the channel's rule, or a 400 naming `to`. */
function addressFor(step: SendStep, to: string): string {
  const channel = channelNamed(step.channel);
  if (!channel.testSend) {
    throw new ConflictError(
      `${channel.title} reaches people by no address one can type: preview the step instead.`,
      'no-test-send',
    );
  }
  const parsed = channel.testSend.address.safeParse(to);
  if (!parsed.success) throw new ValidationError([{ path: 'to', message: parsed.error.issues[0]!.message }]);
  return parsed.data;
}

/** Renders and sends one test; a template error is thrown before anything is sent or counted. */
export async function sendStepTest(
  app: AppContext,
  workspaceId: string,
  input: TestSendInput,
): Promise<SendOutcome> {
  const to = addressFor(input.step, input.to);
  const channel = channelNamed(input.step.channel);
  const id = `test_${ulid()}`;
  const { outgoing } = await renderStep(app, workspaceId, input.step, { ...input, messageId: id });
  // Counted and recorded under a lock per person, so a burst cannot pass the count together; the
  // entry records the attempt (a send that fails still reached the provider), the page its outcome.
  await app.db.transaction(async (tx) => {
    await lockUserActions(tx, input.userId);
    const recent = await countRecentActions(tx, {
      userId: input.userId,
      action: 'campaign.testSent',
      windowMs: TEST_SEND_WINDOW_MS,
      cap: TEST_SENDS_PER_WINDOW,
    });
    if (recent >= TEST_SENDS_PER_WINDOW) {
      throw new RateLimitedError(
        TEST_SEND_WINDOW_MS / 1000,
        `You sent ${TEST_SENDS_PER_WINDOW} test messages in the last ${TEST_SEND_WINDOW_MS / 60_000} minutes: try again later.`,
      );
    }
    const after = { stepKey: input.stepKey, channel: channel.name, to, contactId: input.contactId };
    await recordAudit(tx, { workspaceId, action: 'campaign.testSent', targetId: input.campaignId, after });
  });
  return channel.send(app, workspaceId, channel.testSend!.retarget(outgoing, to));
}

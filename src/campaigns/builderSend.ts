// A send step's inputs in the campaign builder: the channel, and one plain input per field of that
// channel's step schema (src/channels/<name>/channel.ts), read from the registry, so a new channel's
// fields appear here without a change. The rich template editor (preview, test send) is its own page.
import { CHANNEL_REGISTRY, channelNamed } from '../channels/index.ts';
import { html, type SafeHtml } from '../console/index.ts';
import { type FieldSchema, type FormStep, sendFieldNames, unwrapOptional } from './builderForm.ts';
import { actionButton, type Place, selectInput, textInput } from './builderInputs.ts';

type SendStep = Extract<FormStep, { type: 'send' }>;
const ACRONYMS: Record<string, string> = { url: 'URL', ttl: 'TTL', html: 'HTML' };

/** `ttlSeconds` → "TTL seconds". */
export function fieldLabel(name: string): string {
  const words = name
    .replace(/([A-Z])/g, ' $1')
    .toLowerCase()
    .split(' ');
  const text = words.map((word) => ACRONYMS[word] ?? word).join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Long text (a body) gets a textarea; numbers a number input; a choice a select. */
function fieldInput(place: Place, at: string, name: string, schema: FieldSchema, value: string): SafeHtml {
  const { inner, optional } = unwrapOptional(schema);
  const label = `${fieldLabel(name)}${optional ? ' (optional)' : ''}`;
  const id = `${at}.${name}`;
  if (inner.def.type === 'enum') {
    const values = Object.values(inner.def.entries ?? {});
    const options = [
      ...(optional ? [['', '(default)'] as const] : []),
      ...values.map((v) => [v, v] as const),
    ];
    return selectInput(place, { name: id, label, value, options });
  }
  if (inner.def.type === 'number') return textInput(place, { name: id, label, value, type: 'number' });
  const long = (inner.maxLength ?? 0) > 1000;
  return textInput(place, { name: id, label, value, ...(long ? { rows: 6 } : { size: 40 }) });
}

/** The send step's channel and fields; `at` is the step's path (`steps[2].then[0]`). */
export function sendStepInputs(place: Place, at: string, step: SendStep): SafeHtml {
  const shape = (channelNamed(step.channel).step as unknown as { shape: Record<string, FieldSchema> }).shape;
  const channels = CHANNEL_REGISTRY.map((channel) => [channel.name, channel.title] as const);
  return html`<div class="builder-row">${selectInput(place, {
    name: `${at}.channel`,
    label: 'Channel',
    value: step.channel,
    options: channels,
  })} ${actionButton('refresh', 'Show this channel’s fields')}</div>
${sendFieldNames(step.channel).map((name) => fieldInput(place, at, name, shape[name]!, step.fields[name] ?? ''))}`;
}

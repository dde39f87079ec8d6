// Reading and submitting the campaign builder's form the way a browser without JavaScript does:
// every field's current value (checked radios and boxes only, selected options), a change of some,
// and the button pressed (`action`).
import { expect } from 'chai';
import { Parser } from 'htmlparser2';
import type { Client } from '../support/client.ts';
import { type ConsoleResponse, consolePage, postConsoleForm } from '../support/console.ts';

const ENTITIES: Record<string, string> = {
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
  '&amp;': '&',
};
const decode = (text: string) => text.replace(/&(lt|gt|quot|#39|amp);/g, (entity) => ENTITIES[entity]!);

/** The successful controls of the page's builder form, as a browser would post them (no button). */
export function formFields(page: string): Record<string, string> {
  const fields: Record<string, string> = {};
  let select: { name: string; first: string | null; chosen: boolean } | null = null;
  let option: { value: string | null; selected: boolean; text: string } | null = null;
  let textarea: { name: string; text: string } | null = null;
  let inBuilder = false;
  const parser = new Parser({
    onopentag(name, attrs) {
      if (name === 'form' && /campaign-builder|stack/.test(attrs.class ?? '')) inBuilder = true;
      if (!inBuilder || !attrs.name) {
        if (name === 'option' && select)
          option = { value: attrs.value ?? null, selected: 'selected' in attrs, text: '' };
        return;
      }
      if (name === 'input') {
        const type = attrs.type ?? 'text';
        if ((type === 'radio' || type === 'checkbox') && !('checked' in attrs)) return;
        if (type === 'submit') return;
        fields[attrs.name] = attrs.value ?? (type === 'checkbox' ? 'on' : '');
      }
      if (name === 'select') select = { name: attrs.name, first: null, chosen: false };
      if (name === 'textarea') textarea = { name: attrs.name, text: '' };
    },
    ontext(text) {
      if (textarea) textarea.text += text;
      if (option) option.text += text;
    },
    onclosetag(name) {
      if (name === 'form') inBuilder = false;
      if (name === 'textarea' && textarea) {
        // htmlparser2 leaves a textarea's text (RCDATA) undecoded; a browser decodes it.
        fields[textarea.name] = decode(textarea.text.replace(/^\n/, ''));
        textarea = null;
      }
      if (name === 'option' && option && select) {
        const value = option.value ?? option.text;
        if (select.first === null) select.first = value;
        if (option.selected) {
          fields[select.name] = value;
          select.chosen = true;
        }
        option = null;
      }
      if (name === 'select' && select) {
        if (!select.chosen && select.first !== null) fields[select.name] = select.first;
        select = null;
      }
    },
  });
  parser.write(page);
  parser.end();
  return fields;
}

/** The form's action attribute. */
export function formAction(page: string): string {
  const action = /<form method="post" action="([^"]+)" class="(?:campaign-builder|stack)"/.exec(page)?.[1];
  expect(action, 'the builder form').to.be.a('string');
  return action!.replaceAll('&amp;', '&');
}

/** Presses a button of the form with some fields changed first; answers the response. */
export async function press(
  client: Client,
  page: ConsoleResponse,
  action: string,
  changes: Record<string, string> = {},
) {
  const fields = { ...formFields(page.text), ...changes, action };
  return postConsoleForm(client, formAction(page.text), fields);
}

/** Presses a button that re-renders the form (200) and answers the new page. */
export async function step(
  client: Client,
  page: ConsoleResponse,
  action: string,
  changes: Record<string, string> = {},
): Promise<ConsoleResponse> {
  const response = await press(client, page, action, changes);
  expect(response.status, response.text.slice(0, 2000)).to.equal(200);
  return { ...response, token: page.token };
}

export { consolePage };

// What a template written by a workspace member must not be able to do: read files, reach
// JavaScript internals, use unknown filters, or hold the worker with loops and memory bombs.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import {
  RENDER_LIMIT_MS,
  renderEmail,
  renderText,
  TemplateError,
  validateTemplate,
} from '../../src/templates/index.ts';

function renderFailure(source: string, variables = {}): TemplateError {
  for (const render of [
    () => renderText(source, variables),
    () => renderEmail({ subject: '', html: source }, variables).html,
  ]) {
    try {
      const output = render();
      throw new Error(`rendered instead of failing: ${output.slice(0, 200)}`);
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
    }
  }
  try {
    renderText(source, variables);
  } catch (error) {
    return error as TemplateError;
  }
  throw new Error('unreachable');
}

describe('templates: safety', () => {
  const packageJson = readFileSync('package.json', 'utf8');

  for (const source of [
    "{% include 'package.json' %}",
    "{% render 'package.json' %}",
    "{% layout 'package.json' %}body",
    "{% include '../../etc/passwd' %}",
    '{% include "/etc/passwd" %}',
    '{% liquid\ninclude "package.json" %}',
  ]) {
    it(`reads no file: ${JSON.stringify(source)}`, () => {
      const error = renderFailure(source);
      expect(error.message).to.match(/is not supported: a template cannot load other templates or files/);
      expect(error.message).not.to.include(packageJson.slice(0, 20));
      expect(validateTemplate(source, 'html')?.message).to.equal(error.message);
    });
  }

  it('reads no file named by a variable', () => {
    const error = renderFailure('{% include contact.attributes.file %}', {
      contact: { attributes: { file: 'package.json' } },
    });
    expect(error.message).to.match(/not supported/);
  });

  it('exposes own properties only: no constructor, __proto__ or inherited values', () => {
    const contact = Object.assign(Object.create({ inherited: 'leaked' }), { email: 'ann@example.com' });
    const source =
      '[{{ contact.constructor }}|{{ contact.constructor.name }}|{{ contact.__proto__ }}|' +
      '{{ contact.__proto__.inherited }}|{{ contact.inherited }}|{{ contact.hasOwnProperty }}|' +
      '{{ contact.toString }}|{{ contact.email.constructor.constructor }}|{{ contact.email }}]';
    expect(renderText(source, { contact })).to.equal('[||||||||ann@example.com]');
    expect(renderEmail({ subject: '', html: source }, { contact }).html).to.equal(
      '[||||||||ann@example.com]',
    );
  });

  it('refuses an unknown filter when the template is parsed', () => {
    expect(renderFailure('{{ contact.email | evil }}').message).to.equal('undefined filter: evil');
    expect(validateTemplate('{{ contact.email | evil }}', 'text')?.message).to.equal(
      'undefined filter: evil',
    );
  });

  it('stops a huge loop quickly with a TemplateError', () => {
    const started = performance.now();
    const error = renderFailure('{% for i in (1..100000000) %}{{ i }}{% endfor %}');
    expect(error.message).to.match(/limit exceeded/);
    expect(performance.now() - started).to.be.below(2_000);
  });

  // The memory budget (500,000) counts each inner range: it, or the time limit, ends the loops.
  it('stops nested loops at a render limit', () => {
    const started = performance.now();
    const error = renderFailure(
      '{% for i in (1..100000) %}{% for j in (1..100000) %}{% endfor %}{% endfor %}',
    );
    expect(error.message).to.match(/^(template render|memory alloc) limit exceeded$/);
    expect(performance.now() - started).to.be.below(2 * 2 * RENDER_LIMIT_MS + 2_000);
  });

  it('renders again when a pause, not the template, held a render past the time limit', () => {
    // The first render of `slow` blocks past the limit, as a garbage-collection pause can.
    let pauses = 1;
    const variables = {
      get slow() {
        const until = performance.now() + RENDER_LIMIT_MS + 50;
        while (pauses > 0 && performance.now() < until);
        pauses = 0;
        return 'fine';
      },
    };
    expect(renderText('{{ slow }}{% for i in (1..3) %}{{ i }}{% endfor %}', variables as never)).to.equal(
      'fine123',
    );
  });

  it('stops a memory bomb with a TemplateError', () => {
    const started = performance.now();
    const error = renderFailure(
      '{% assign s = "x" %}{% for i in (1..30) %}{% assign s = s | append: s %}{% endfor %}{{ s | size }}',
    );
    expect(error.message).to.equal('memory alloc limit exceeded');
    expect(performance.now() - started).to.be.below(2_000);
  });

  it('refuses a template longer than the parse limit', () => {
    const problem = validateTemplate('x'.repeat(1_000_001), 'html');
    expect(problem?.message).to.match(/parse length limit exceeded/);
  });
});

// The templates kit as channels use it: escaping per output kind, missing values, generated text
// parts, error positions and the parse cache.
import { expect } from 'chai';
import {
  compileTemplate,
  renderEmail,
  renderText,
  TEMPLATE_CACHE_ENTRIES,
  TemplateError,
  type TemplateVariables,
  validateTemplate,
} from '../../src/templates/index.ts';

const variables: TemplateVariables = {
  contact: { email: 'ann@example.com', firstName: '<Ann> & co', lastName: null, attributes: { plan: 'pro' } },
  event: { type: 'order.placed', metadata: { total: 42 } },
  campaign: { id: 'cmp_1', name: 'Welcome' },
  workspace: { name: 'Acme' },
  message: { id: 'msg_1' },
  unsubscribe_url: 'https://example.com/u/tok?a=1&b=2',
};

function thrown(action: () => unknown): TemplateError {
  try {
    action();
  } catch (error) {
    expect(error).to.be.instanceOf(TemplateError);
    return error as TemplateError;
  }
  throw new Error('expected a TemplateError');
}

describe('templates: rendering', () => {
  it('escapes HTML in email bodies, lets `| raw` opt out, and escapes neither subjects nor text', () => {
    const email = renderEmail(
      {
        subject: 'Hi {{ contact.firstName }}',
        html: '<p>{{ contact.firstName }}|{{ "<b>bold</b>" | raw }}|<a href="{{ unsubscribe_url }}">x</a></p>',
        text: 'Hi {{ contact.firstName }}',
      },
      variables,
    );
    expect(email.subject).to.equal('Hi <Ann> & co');
    expect(email.html).to.equal(
      '<p>&lt;Ann&gt; &amp; co|<b>bold</b>|<a href="https://example.com/u/tok?a=1&amp;b=2">x</a></p>',
    );
    expect(email.text).to.equal('Hi <Ann> & co');
    expect(renderText('{{ contact.firstName }}', variables)).to.equal('<Ann> & co');
  });

  it('escapes an output whose last filter is not `raw`', () => {
    const { html } = renderEmail({ subject: '', html: '{{ "<i>" | raw | upcase }}' }, variables);
    expect(html).to.equal('&lt;I&gt;');
  });

  it('renders every documented variable', () => {
    const source =
      '{{ contact.email }} {{ contact.attributes.plan }} {{ event.type }} {{ event.metadata.total }} ' +
      '{{ campaign.id }} {{ campaign.name }} {{ workspace.name }} {{ message.id }} {{ unsubscribe_url }}';
    expect(renderText(source, variables)).to.equal(
      'ann@example.com pro order.placed 42 cmp_1 Welcome Acme msg_1 https://example.com/u/tok?a=1&b=2',
    );
  });

  it('renders a missing variable empty, and `| default` supplies a fallback', () => {
    expect(
      renderText('[{{ contact.lastName }}|{{ contact.phone }}|{{ nothing.at.all }}]', variables),
    ).to.equal('[||]');
    expect(renderText('Hello {{ contact.lastName | default: "there" }}', variables)).to.equal('Hello there');
    expect(renderText('Hello {{ contact.firstName | default: "there" }}', {})).to.equal('Hello there');
    expect(renderText('{% if contact.phone %}call{% else %}write{% endif %}', variables)).to.equal('write');
  });

  it('generates the text part from the HTML: links as `text [url]`, no images, wrapped lines', () => {
    const html =
      '<html><head><style>p { color: red }</style></head><body><h1>Hello {{ contact.firstName }}</h1>' +
      '<img src="https://example.com/logo.png" alt="Logo">' +
      `<p>${'lorem ipsum '.repeat(20)}</p>` +
      '<p><a href="https://example.com/offer">See the offer</a></p></body></html>';
    const { text } = renderEmail({ subject: 's', html }, variables);
    expect(text).to.include('Hello <Ann> & co');
    expect(text).to.include('See the offer [https://example.com/offer]');
    expect(text).not.to.include('logo.png');
    expect(text).not.to.include('Logo');
    expect(text).not.to.include('color: red');
    for (const line of text.split('\n')) expect(line.length).to.be.at.most(78);
  });

  it('uses the text template when there is one', () => {
    const email = renderEmail(
      { subject: 's', html: '<p>html</p>', text: 'plain {{ workspace.name }}' },
      variables,
    );
    expect(email.text).to.equal('plain Acme');
  });
});

describe('templates: errors', () => {
  it('reports the line and column of a parse error, in a plain message', () => {
    const error = thrown(() => renderText('Hello\n\n  {{ contact.firstName | shout }}', variables));
    expect(error.line).to.equal(3);
    expect(error.column).to.equal(3);
    expect(error.message).to.equal('undefined filter: shout');
  });

  it('reports the line of a render error, and which part of the email failed', () => {
    const error = thrown(() =>
      renderEmail({ subject: 'ok', html: '<p>\n{% for i in (1..100000000) %}{% endfor %}</p>' }, variables),
    );
    expect(error.field).to.equal('html');
    expect(error.line).to.equal(2);
    expect(error.column).to.equal(1);
    expect(error.message).to.match(/limit exceeded/);
    expect(thrown(() => renderEmail({ subject: '{{ x | nope }}', html: '' }, variables)).field).to.equal(
      'subject',
    );
  });

  it('validates a template at save time: null when it parses, else where and why', () => {
    expect(validateTemplate('Hi {{ contact.firstName | default: "there" }}', 'text')).to.equal(null);
    expect(validateTemplate('<p>\n{% if contact.email %}</p>', 'html')).to.deep.equal({
      line: 2,
      column: 1,
      message: 'tag {% if contact.email %} not closed',
    });
    expect(validateTemplate('{{ x | evil }}', 'html')).to.deep.equal({
      line: 1,
      column: 1,
      message: 'undefined filter: evil',
    });
  });
});

describe('templates: parse cache', () => {
  it('reuses the compiled template for the same key and source, and parses a changed source', () => {
    const first = compileTemplate('cmp_cache:v1:0:subject', 'Hi {{ contact.firstName }}');
    expect(compileTemplate('cmp_cache:v1:0:subject', 'Hi {{ contact.firstName }}')).to.equal(first);
    const changed = compileTemplate('cmp_cache:v1:0:subject', 'Hello {{ contact.firstName }}');
    expect(changed).not.to.equal(first);
    expect(changed.render(variables)).to.equal('Hello <Ann> & co');
    expect(compileTemplate('cmp_cache:v1:0:html', 'Hi {{ contact.firstName }}', 'html')).not.to.equal(first);
  });

  it('keeps at most TEMPLATE_CACHE_ENTRIES parsed templates, dropping the least recently used', () => {
    const oldest = compileTemplate('cmp_bound:oldest', 'oldest');
    const recent = compileTemplate('cmp_bound:recent', 'recent');
    for (let i = 0; i < TEMPLATE_CACHE_ENTRIES - 1; i++) {
      compileTemplate(`cmp_bound:${i}`, `filler ${i}`);
      if (i % 100 === 0) compileTemplate('cmp_bound:recent', 'recent'); // keeps it recently used
    }
    expect(compileTemplate('cmp_bound:recent', 'recent')).to.equal(recent);
    expect(compileTemplate('cmp_bound:oldest', 'oldest')).not.to.equal(oldest);
  });
});

// The console kit's pure parts: escaping, safe URLs, cursors and query links, the sparkline.
import { expect } from 'chai';
import { z } from 'zod';
import { sparkline } from '../../src/console/components.ts';
import { html, raw, safeUrl } from '../../src/console/html.ts';
import { encodeCursor, pageOf, readCursor, withQuery } from '../../src/console/paging.ts';

describe('console kit', () => {
  it('escapes every interpolated value unless it is SafeHtml, and joins lists', () => {
    const name = `<script>"x" & 'y'</script>`;
    expect(String(html`<p title="${name}">${name}</p>`)).to.equal(
      '<p title="&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;">&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;</p>',
    );
    expect(String(html`<ul>${['<a>', 'b'].map((item) => html`<li>${item}</li>`)}</ul>`)).to.equal(
      '<ul><li>&lt;a&gt;</li><li>b</li></ul>',
    );
    expect(String(html`${raw('<b>ok</b>')}${null}${undefined}${false}${0}`)).to.equal('<b>ok</b>0');
  });

  it('lets only http(s), mailto and same-site URLs into links', () => {
    expect(safeUrl('https://example.com/a?b=1')).to.equal('https://example.com/a?b=1');
    expect(safeUrl('/app/ws_1/contacts')).to.equal('/app/ws_1/contacts');
    expect(safeUrl('mailto:a@example.com')).to.equal('mailto:a@example.com');
    for (const hostile of [
      'javascript:alert(1)',
      ' JavaScript:alert(1)',
      'data:text/html,x',
      '//evil.example',
      '/\\evil',
      'java\tscript:x',
      'vbscript:x',
    ])
      expect(safeUrl(hostile), hostile).to.equal('#');
  });

  it('reads back only cursors of the expected shape', () => {
    const shape = z.tuple([z.number(), z.string()]);
    expect(readCursor(encodeCursor([5, 'ct_1']), shape)).to.deep.equal([5, 'ct_1']);
    expect(readCursor(encodeCursor(['5', 'ct_1']), shape)).to.equal(null);
    expect(readCursor('%%%', shape)).to.equal(null);
    expect(readCursor(undefined, shape)).to.equal(null);
    const { shown, next } = pageOf([1, 2, 3], 2, (n) => [n, `id${n}`]);
    expect(shown).to.deep.equal([1, 2]);
    expect(readCursor(next, shape)).to.deep.equal([2, 'id2']);
    expect(pageOf([1, 2], 2, (n) => [n]).next).to.equal(null);
  });

  it('builds links that keep the query, and start again at the first page when a filter changes', () => {
    expect(withQuery('/c?q=a&after=xyz', { sort: 'email' })).to.equal('/c?q=a&sort=email');
    expect(withQuery('/c?q=a', { after: 'next' })).to.equal('/c?q=a&after=next');
    expect(withQuery('/c?q=a&segment=s', { segment: null, q: '' })).to.equal('/c');
  });

  it('draws a sparkline scaled to its box, named for screen readers', () => {
    const svg = String(sparkline([0, 10, 5], { label: 'Score <3', width: 102, height: 12 }));
    expect(svg).to.contain('points="1.0,11.0 51.0,1.0 101.0,6.0"').and.contain('aria-label="Score &lt;3"');
    expect(String(sparkline([], { label: 'x' }))).to.contain('No data');
  });
});

// Every relative link in the documentation reaches a file that exists (and, with a #fragment, a
// heading in it): documents move, and a link that points nowhere is the first thing a newcomer
// meets.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SKIP = new Set(['node_modules', '.git', '.data']);

function markdownFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const full = path.join(directory, name);
    if (SKIP.has(name)) return [];
    if (statSync(full).isDirectory()) return markdownFiles(full);
    return name.endsWith('.md') ? [full] : [];
  });
}

/** GitHub's anchor for a heading: lowercased, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');
}

function anchorsIn(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1])));
}

/** The relative links of a markdown file, outside code blocks and code spans. */
function linksIn(text: string): string[] {
  const prose = text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1])
    .filter((target) => !/^[a-z]+:/i.test(target));
}

describe('docs: links', () => {
  it('every relative link reaches a file, and its #fragment a heading there', () => {
    const broken: string[] = [];
    for (const file of markdownFiles(ROOT)) {
      for (const link of linksIn(readFileSync(file, 'utf8'))) {
        const [target, fragment] = link.split('#');
        const resolved = target ? path.resolve(path.dirname(file), decodeURI(target)) : file;
        const where = `${path.relative(ROOT, file)} → ${link}`;
        if (!existsSync(resolved)) broken.push(`${where}: no such file`);
        else if (fragment && resolved.endsWith('.md') && !anchorsIn(resolved).has(fragment)) {
          broken.push(`${where}: no such heading`);
        }
      }
    }
    expect(broken, broken.join('\n')).to.deep.equal([]);
  });

  it('reads links the way a renderer does', () => {
    expect(linksIn('see [a](docs/a.md#b), `[c](d.md)`, [e](https://x.test)')).to.deep.equal(['docs/a.md#b']);
    expect(anchorOf('Where the goals stand (2026-11-24)')).to.equal('where-the-goals-stand-2026-11-24');
    expect(anchorOf('`npm start`: first steps')).to.equal('npm-start-first-steps');
  });
});

// Writes .env.example and docs/operate/configuration.md from the table in variables.ts
// (`npm run config:docs`); test/config/configDocs.unit.test.ts fails when either file differs.
import { writeFileSync } from 'node:fs';
import { AUDIENCES, GROUPS, type Group, UNIT_MS, VARIABLES, type Variable } from './variables.ts';

const entries = Object.entries(VARIABLES) as [string, Variable][];

/** A group's variables, those production requires first, then by audience, table order within. */
function inGroup(group: Group): [string, Variable][] {
  return entries
    .filter(([, entry]) => entry.group === group)
    .sort(([, a], [, b]) => AUDIENCES.indexOf(a.audience) - AUDIENCES.indexOf(b.audience));
}

const groupsInUse = GROUPS.filter((group) => inGroup(group).length > 0);
const plain = (markdown: string) => markdown.replaceAll('`', '');

function wrap(text: string, width = 98): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(' ')) {
    if (line.length + word.length + 1 > width && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

/** A value as a .env line needs it: quoted when it holds spaces or a comment sign. */
const envValue = (value: string) => (/[\s#"]/.test(value) ? `"${value}"` : value);

function envEntry([name, entry]: [string, Variable]): string[] {
  const unset = entry.unset ? ` Unset: ${entry.unset}.` : '';
  const former = entry.formerly ? ` Formerly ${entry.formerly.name} (still read, with a warning).` : '';
  const comment = wrap(`[${entry.audience}] ${plain(entry.description)}.${plain(unset)}${former}`);
  const line =
    entry.default !== undefined
      ? `${name}=${envValue(entry.default)}`
      : `# ${name}=${entry.example ? envValue(entry.example) : ''}`;
  return [...comment, line];
}

export function renderEnvExample(): string {
  const head = [
    '# Switchboard configuration, generated from src/config/variables.ts by `npm run config:docs`',
    '# (do not edit by hand). docs/operate/configuration.md explains each variable and the units.',
    '# Every variable is optional unless marked [required in production]; an empty value counts as',
    '# unset. The service reads the environment only: it does not load this file. Durations are in',
    '# milliseconds (names ending in _MS).',
  ];
  const required = entries.filter(([, entry]) => entry.audience === 'required in production');
  const sections = [
    ['', '# --- Required in production ---------------------------------------------------------------'],
    ...required.map((entry) => envEntry(entry)),
    ...groupsInUse.flatMap((group) => {
      const rest = inGroup(group).filter(([, entry]) => entry.audience !== 'required in production');
      if (rest.length === 0) return [];
      return [['', `# --- ${group} ${'-'.repeat(Math.max(3, 92 - group.length))}`], ...rest.map(envEntry)];
    }),
  ];
  return `${[...head, ...sections.flat()].join('\n')}\n`;
}

const cell = (text: string) => text.replaceAll('|', '\\|');

function defaultCell(entry: Variable): string {
  if (entry.default !== undefined) return entry.default === '' ? '(empty)' : `\`${cell(entry.default)}\``;
  return entry.unset ? cell(entry.unset) : '—';
}

function pageRow([name, entry]: [string, Variable]): string {
  const former = entry.formerly ? ` Formerly \`${entry.formerly.name}\`.` : '';
  return `| \`${name}\` | ${defaultCell(entry)} | ${entry.audience} | ${cell(entry.description)}.${former} |`;
}

function formerNamesTable(): string[] {
  const renamed = entries.filter(([, entry]) => entry.formerly);
  return [
    '| Deprecated name | Read as | Conversion |',
    '|---|---|---|',
    ...renamed.map(([name, entry]) => {
      const unit = entry.formerly?.unit;
      const conversion = unit ? `× ${UNIT_MS[unit]} (${unit} to milliseconds)` : 'the same value';
      return `| \`${entry.formerly?.name}\` | \`${name}\` | ${conversion} |`;
    }),
  ];
}

export function renderConfigurationPage(): string {
  const counts = AUDIENCES.map(
    (audience) => `${entries.filter(([, entry]) => entry.audience === audience).length} ${audience}`,
  );
  const lines = [
    '# Configuration',
    '',
    '<!-- Generated from src/config/variables.ts by `npm run config:docs`; do not edit by hand. -->',
    '',
    'Switchboard reads environment variables only, once, at start-up; a bad value stops the process',
    'with a message naming the variable. An empty value counts as unset. [`.env.example`](../../.env.example)',
    'lists the same variables with their defaults, those production requires first.',
    '',
    `${entries.length} variables: ${counts.join(', ')}. Each has an audience:`,
    '',
    '- **required in production**: set these before the first deploy (`NODE_ENV=production` refuses to start without `SESSION_SECRET` and `ENCRYPTION_KEY`, and refuses the development-only settings).',
    '- **common**: what an operator commonly decides (retention, session lifetimes, the public URL).',
    '- **tuning**: limits and timeouts whose defaults suit most installations; change them when measurements say so.',
    '- **development and tests**: for a local setup or the test suite; leave them unset in production.',
    '',
    '## Units',
    '',
    'Every duration is a whole number of **milliseconds**, in a name ending in `_MS` (e.g.',
    '`SESSION_IDLE_TIMEOUT_MS=86400000` is a day). Milliseconds were chosen because most durations',
    'already used them (timeouts, waits, leases), tests set sub-second values, and one unit avoids',
    "converting in one's head between names. Where an interface counts whole seconds or minutes (pg-boss job",
    'expiry, sign-in windows), the value is rounded up. Exceptions that are not durations: the retry',
    'schedules (`WEBHOOK_RETRY_SCHEDULE`, `MESSAGE_RETRY_SCHEDULE`, comma-separated seconds),',
    '`EVENT_PARTITIONS_AHEAD_MONTHS` (a count of partitions), sizes in `_KIB` and `_MB`.',
    '',
    '## Deprecated names',
    '',
    'Variables once named in seconds, minutes, hours or days are still read under their old names: the',
    'value is converted to milliseconds and the process logs a warning once at start-up. When both the',
    'old and the new name are set, the new one wins, with a warning. `WEBHOOK_ALLOW_PRIVATE_TARGETS` is',
    'the old name of `ALLOW_PRIVATE_TARGETS`.',
    '',
    ...formerNamesTable(),
  ];
  for (const group of groupsInUse) {
    lines.push('', `## ${group}`, '', '| Variable | Default | Audience | Description |', '|---|---|---|---|');
    lines.push(...inGroup(group).map(pageRow));
  }
  return `${lines.join('\n')}\n`;
}

export const GENERATED = [
  { path: '.env.example', render: renderEnvExample },
  { path: 'docs/operate/configuration.md', render: renderConfigurationPage },
];

if (import.meta.main) {
  for (const file of GENERATED) writeFileSync(file.path, file.render());
  process.stdout.write(`wrote ${GENERATED.map((file) => file.path).join(' and ')}\n`);
}

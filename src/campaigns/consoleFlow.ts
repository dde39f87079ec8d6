// A campaign's flow drawn as server-rendered SVG: a box per step in flow order, a branch's yes and
// no arms and a split's paths side by side below their box, waits with their durations, and the
// end of the flow; on each box the step's numbers now (from the campaign report and stepFiguresOf).
// It needs no script, so it reads the same with JavaScript off, and tests can read its text.
//
//   flowDiagram(campaign.name, campaign.steps, figures)
import { channelNamed } from '../channels/index.ts';
import { formatNumber, html, type SafeHtml } from '../console/index.ts';
import { describeRule } from '../segments/index.ts';
import type { Step } from './flow.ts';
import type { BranchCondition } from './schemas.ts';

/** The numbers shown on one step's box; a field left undefined is not shown. */
export type StepFigures = {
  reached?: number;
  waiting?: number;
  sent?: number;
  delivered?: number;
  opens?: number;
  clicks?: number;
  /** Split steps: each path's enrollments, in path order. */
  paths?: number[];
};

export type FlowFigures = {
  steps: Map<string, StepFigures>;
  /** How enrollments ended (the end box): completed the flow, converted on the goal, exited. */
  ended: { completed: number; converted: number; exited: number };
  /** Segments' names by id, for branches on a segment (an id stays shown if it has none). */
  segmentNames?: Map<string, string>;
};

const BOX_W = 236;
const LINE_H = 16;
const PAD = 10;
const GAP_Y = 30;
const GAP_X = 20;
const LABEL_H = 18;
const MAX_CHARS = 34;

type Block = { width: number; height: number; draw: (x: number, y: number) => SafeHtml[] };

const UNITS: [RegExp, string][] = [
  [/(\d+)Y/, 'year'],
  [/(\d+)M/, 'month'],
  [/(\d+)W/, 'week'],
  [/(\d+)D/, 'day'],
];
const TIME_UNITS: [RegExp, string][] = [
  [/(\d+)H/, 'hour'],
  [/(\d+)M/, 'minute'],
  [/(\d+)S/, 'second'],
];

/** "P2DT3H" → "2 days 3 hours". */
export function durationWords(iso: string): string {
  const [datePart, timePart = ''] = iso.slice(1).split('T');
  const words: string[] = [];
  const add = (pattern: RegExp, unit: string, text: string) => {
    const count = Number(pattern.exec(text)?.[1] ?? 0);
    if (count > 0) words.push(`${count} ${unit}${count === 1 ? '' : 's'}`);
  };
  for (const [pattern, unit] of UNITS) add(pattern, unit, datePart ?? '');
  for (const [pattern, unit] of TIME_UNITS) add(pattern, unit, timePart);
  return words.join(' ') || iso;
}

function shorten(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_CHARS ? `${line.slice(0, MAX_CHARS - 1)}…` : line;
}

function conditionWords(condition: BranchCondition, segmentNames: Map<string, string>): string {
  if ('segment' in condition)
    return `in segment “${segmentNames.get(condition.segment) ?? condition.segment}”`;
  if ('since' in condition) return `did “${condition.event}” since enrolling`;
  return describeRule(condition);
}

/** The first template field of a send step (a subject, a title, a text): what the box quotes. */
function sendSummary(step: Extract<Step, { type: 'send' }>): string {
  const first = channelNamed(step.channel)
    .templateFields(step)
    .find(([, , value]) => typeof value === 'string' && value.trim() !== '');
  return first ? String(first[2]) : '';
}

export function stepHeading(
  key: string,
  step: Step,
  segmentNames: Map<string, string> = new Map(),
): { title: string; detail: string } {
  const number = `Step ${key}`;
  switch (step.type) {
    case 'send':
      return { title: `${number} · send ${step.channel}`, detail: sendSummary(step) };
    case 'wait':
      return {
        title: `${number} · wait`,
        detail: step.duration
          ? durationWords(step.duration)
          : `until ${step.until?.time}${step.until?.timezone ? ` (${step.until.timezone})` : ''}`,
      };
    case 'branch':
      return { title: `${number} · branch`, detail: `if ${conditionWords(step.if, segmentNames)}` };
    case 'split':
      return { title: `${number} · split`, detail: `${step.paths.length} paths by weight` };
    case 'exit':
      return { title: `${number} · exit`, detail: 'the enrollment ends here' };
  }
}

function numberLines(figures: StepFigures | undefined): string[] {
  if (!figures) return [];
  const part = (label: string, value: number | undefined) =>
    value === undefined ? null : `${label} ${formatNumber(value)}`;
  const lines = [
    [part('reached', figures.reached), part('waiting', figures.waiting)],
    [part('sent', figures.sent), part('delivered', figures.delivered)],
    [part('opened', figures.opens), part('clicked', figures.clicks)],
  ];
  return lines.map((line) => line.filter(Boolean).join(' · ')).filter((line) => line !== '');
}

function box(lines: string[], tooltip: string, kind: string, testId: string): Block {
  const height = PAD * 2 + lines.length * LINE_H;
  return {
    width: BOX_W,
    height,
    draw: (x, y) => [
      html`<g class="flow-step flow-${kind}" data-step="${testId}"><title>${tooltip}</title>
<rect x="${x}" y="${y}" width="${BOX_W}" height="${height}" rx="6" fill="none" stroke="currentColor"${kind === 'end' ? html` stroke-dasharray="4 3"` : ''}/>
${lines.map(
  (line, i) =>
    html`<text x="${x + PAD}" y="${y + PAD + (i + 1) * LINE_H - 4}" fill="currentColor" font-size="12"${i === 0 ? html` font-weight="bold"` : ''}>${shorten(line)}</text>`,
)}</g>`,
    ],
  };
}

const line = (x1: number, y1: number, x2: number, y2: number) =>
  html`<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="currentColor" stroke-width="1"/>`;

const arrow = (x: number, y1: number, y2: number) =>
  html`${line(x, y1, x, y2)}<path d="M${x - 4},${y2 - 6} L${x},${y2} L${x + 4},${y2 - 6}" fill="none" stroke="currentColor"/>`;

/** Blocks one above the other, centred, joined by arrows. */
function column(blocks: Block[]): Block {
  if (blocks.length === 0) {
    return { width: 80, height: LINE_H, draw: (x, y) => [line(x + 40, y, x + 40, y + LINE_H)] };
  }
  const width = Math.max(...blocks.map((b) => b.width));
  const height = blocks.reduce((sum, b) => sum + b.height, 0) + GAP_Y * (blocks.length - 1);
  return {
    width,
    height,
    draw: (x, y) => {
      const out: SafeHtml[] = [];
      let top = y;
      const centre = x + width / 2;
      blocks.forEach((block, i) => {
        if (i > 0) out.push(arrow(centre, top - GAP_Y, top));
        out.push(...block.draw(centre - block.width / 2, top));
        top += block.height + GAP_Y;
      });
      return out;
    },
  };
}

/** A branch's or split's box with its arms side by side below, each under a label, joined again. */
function fork(head: Block, arms: { label: string; body: Block }[]): Block {
  const armWidth = arms.reduce((sum, arm) => sum + arm.body.width, 0) + GAP_X * (arms.length - 1);
  const width = Math.max(head.width, armWidth);
  const armsHeight = Math.max(...arms.map((arm) => arm.body.height));
  const height = head.height + GAP_Y + LABEL_H + armsHeight + GAP_Y;
  return {
    width,
    height,
    draw: (x, y) => {
      const centre = x + width / 2;
      const out = head.draw(centre - head.width / 2, y);
      const fanY = y + head.height + GAP_Y / 2;
      const armsTop = y + head.height + GAP_Y + LABEL_H;
      const joinY = armsTop + armsHeight + GAP_Y / 2;
      out.push(line(centre, y + head.height, centre, fanY));
      let left = x + (width - armWidth) / 2;
      const centres = arms.map((arm) => {
        const armCentre = left + arm.body.width / 2;
        out.push(
          line(armCentre, fanY, armCentre, armsTop),
          html`<text x="${armCentre + 4}" y="${armsTop - 5}" fill="currentColor" font-size="11">${shorten(arm.label)}</text>`,
          ...arm.body.draw(left, armsTop),
          line(armCentre, armsTop + arm.body.height, armCentre, joinY),
        );
        left += arm.body.width + GAP_X;
        return armCentre;
      });
      out.push(
        line(Math.min(...centres), fanY, Math.max(...centres), fanY),
        line(Math.min(...centres), joinY, Math.max(...centres), joinY),
        line(centre, joinY, centre, y + height),
      );
      return out;
    },
  };
}

function stepBlock(key: string, step: Step, figures: FlowFigures): Block {
  const heading = stepHeading(key, step, figures.segmentNames);
  const numbers = figures.steps.get(key);
  const head = box(
    [heading.title, heading.detail, ...numberLines(numbers)].filter((l) => l !== ''),
    `${heading.title}: ${heading.detail}`,
    step.type,
    key,
  );
  if (step.type === 'branch') {
    return fork(head, [
      { label: 'yes', body: sequence(step.then, `${key}.then`, figures) },
      { label: 'no', body: sequence(step.else, `${key}.else`, figures) },
    ]);
  }
  if (step.type === 'split') {
    return fork(
      head,
      step.paths.map((path, p) => ({
        label: `path ${p + 1} · weight ${path.weight}${
          numbers?.paths ? ` · ${formatNumber(numbers.paths[p] ?? 0)} drew it` : ''
        }`,
        body: sequence(path.steps, `${key}.paths.${p}`, figures),
      })),
    );
  }
  return head;
}

function sequence(steps: Step[], prefix: string, figures: FlowFigures): Block {
  return column(steps.map((step, i) => stepBlock(prefix ? `${prefix}.${i}` : String(i), step, figures)));
}

/** The whole flow, with the end box holding how enrollments ended. */
export function flowDiagram(name: string, steps: Step[], figures: FlowFigures): SafeHtml {
  const { completed, converted, exited } = figures.ended;
  const end = box(
    [
      'End of the flow',
      `completed ${formatNumber(completed)} · converted ${formatNumber(converted)}`,
      `exited ${formatNumber(exited)}`,
    ],
    'End of the flow',
    'end',
    'end',
  );
  const flow = column([sequence(steps, '', figures), end]);
  const margin = 12;
  const width = flow.width + margin * 2;
  const height = flow.height + margin * 2;
  return html`<div class="flow-wrap table-wrap" tabindex="0" role="region" aria-label="Flow diagram">
<svg class="flow" role="img" aria-label="Flow of ${name}: the steps with their numbers" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
${flow.draw(margin, margin)}</svg></div>`;
}

// The live progress page's cost to a broadcast (issue 30): the same broadcast as bench:broadcast
// (one email to every contact of a segment, through the real worker, into a local SMTP sink), sent
// in alternating rounds with and without VIEWERS people watching it: each viewer holds the
// console's server-sent event stream (…/campaigns/{id}/progress/stream) of the web process open
// from activation to the broadcast's end, as the progress page does in a browser. Prints both rates,
// each round's ratio (with ÷ without) and their median, held to ≥ 0.95 (the page open must not
// lower the send rate by more than 5 %).
//   npm run bench:broadcast-progress                              (100,000 contacts, 3 viewers)
//   npm run bench:broadcast-progress -- --contacts 20000 --viewers 10
// BENCH_ROUNDS (5 by default) pairs of rounds; BENCH_DATABASE_URL as bench:broadcast.
import { parseArgs } from 'node:util';
import type { Api } from './ingestSetup.ts';
import { awaitSink, newCampaign, now, runBroadcastBench, stopChild } from './support/broadcastRun.ts';
import { alternate, announce, benchRounds, goalLine, pairedRatios, ratioGoal } from './support/goals.ts';

const { values: args } = parseArgs({
  options: {
    contacts: { type: 'string', default: '100000' },
    viewers: { type: 'string', default: '3' },
  },
});
const CONTACTS = Number(args.contacts);
const VIEWERS = Number(args.viewers);
const ROUNDS = benchRounds();
const GOAL = ratioGoal('messages/s with the progress page open, ratio to without', 0.95);

type Viewing = { events: number; ended: boolean };

/** One viewer: the stream read to its end (the broadcast finished) or until aborted. */
async function view(api: Api, path: string, signal: AbortSignal): Promise<Viewing> {
  const seen: Viewing = { events: 0, ended: false };
  try {
    const response = await fetch(api.base + path, {
      headers: { cookie: api.sessionCookie, accept: 'text/event-stream' },
      signal,
    });
    if (response.status !== 200) throw new Error(`${path} → ${response.status}`);
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      const text = decoder.decode(chunk, { stream: true });
      seen.events += text.split('event: progress').length - 1;
      if (text.includes('event: end')) seen.ended = true;
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
  return seen;
}

async function main() {
  await runBroadcastBench(
    'progress',
    CONTACTS,
    async ({ databaseUrl, sink, api, workspaceId, worker, audience }) => {
      announce('broadcast-progress', [GOAL], ROUNDS);

      /** One broadcast, watched by `viewers` streams from activation on; its messages/s. */
      const send = async (round: number, viewers: number, label: string) => {
        const campaignId = await newCampaign(api, audience, round * 2 + (viewers ? 0 : 1));
        sink.reset();
        const activated = now();
        await api.post(`${audience.base}/campaigns/${campaignId}/activate`, undefined, 200);
        const stop = new AbortController();
        const stream = `/app/${workspaceId}/campaigns/${campaignId}/progress/stream`;
        const watching = Array.from({ length: viewers }, () => view(api, stream, stop.signal));
        await awaitSink(sink, CONTACTS, databaseUrl);
        const seconds = (sink.lastAt() - activated) / 1000;
        // The streams end by themselves once the worker stamps the finish; a few seconds at most.
        const timeout = setTimeout(() => stop.abort(), 15_000);
        const seen = await Promise.all(watching);
        clearTimeout(timeout);
        const events = seen.reduce((sum, v) => sum + v.events, 0);
        const ended = seen.filter((v) => v.ended).length;
        const perSecond = CONTACTS / seconds;
        const watched = viewers ? `, ${viewers} viewers got ${events} updates, ${ended} saw the end` : '';
        process.stdout.write(
          `  round ${round + 1} ${label}: ${perSecond.toFixed(0).padStart(6)} messages/s (${seconds.toFixed(1)} s)${watched}\n`,
        );
        return perSecond;
      };
      const rounds = await alternate(
        ROUNDS,
        (round) => send(round, VIEWERS, 'watched  '),
        (round) => send(round, 0, 'unwatched'),
      );
      await stopChild(worker);
      process.stdout.write(
        `broadcast-progress: ${CONTACTS} contacts, one email each, ${VIEWERS} viewers of the progress stream, ${ROUNDS} rounds\n` +
          `  ${goalLine(GOAL, pairedRatios(rounds.ours, rounds.baseline))}\n`,
      );
    },
  );
}

await main();

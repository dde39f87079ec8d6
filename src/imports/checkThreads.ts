// An NDJSON import's rows are checked by this thread and, on a machine of more cores, by threads
// of their own (src/imports/checkThread.ts): checking is most of the reading's time (zod, ~6 µs a
// row), and the other cores sat idle while one read. The file goes out in chunks of whole lines,
// numbered here, in turn to each checker; the checked chunks come back in file order, so rows
// reach the staging table and refusals the report as if one thread had read them. Each thread
// loads the row schemas (~45 MB), hence one thread fewer than checkers. CSV is read by csv-parse
// on the main thread alone (a quoted field may span lines).
import { createReadStream } from 'node:fs';
import { availableParallelism } from 'node:os';
import { startThreadCalls } from '../threads/calls.ts';
import { rowIds } from './bulkIds.ts';
import { type CheckedChunk, type CheckSetup, type ChunkRequest, checkChunk } from './checkChunk.ts';
import { lineSpans } from './read.ts';

/** Bytes read at a time; a chunk is what they hold up to their last line break. */
const CHUNK_BYTES = 128 * 1024;
/** Chunks given to each checker ahead of the one being written (memory stays a few chunks). */
const AHEAD_PER_CHECKER = 1;
/** A thread's heap: a chunk's lines and values at a time (a single line may be large). */
const THREAD_HEAP = { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 512 };

/** Checkers of an import's rows: one a core, at most 4 (the database's backend works meanwhile too). */
export const checkerCount = () => Math.min(4, availableParallelism());

const NEWLINE = 0x0a;

/** The file as chunks of whole lines, each in a buffer of its own (moved to a thread, not copied). */
async function* wholeLines(file: string, progress: { bytes: number }): AsyncGenerator<Uint8Array> {
  let rest = new Uint8Array(0);
  for await (const read of createReadStream(file, { highWaterMark: CHUNK_BYTES }) as AsyncIterable<Buffer>) {
    progress.bytes += read.length;
    const data = new Uint8Array(rest.length + read.length);
    data.set(rest);
    data.set(read, rest.length);
    const end = data.lastIndexOf(NEWLINE) + 1;
    if (end === 0) {
      rest = data;
      continue;
    }
    rest = data.slice(end);
    yield end === data.length ? data : data.slice(0, end);
  }
  if (rest.length > 0) yield rest;
}

type Checker = { check: (request: ChunkRequest) => Promise<CheckedChunk>; stop: () => Promise<unknown> };

function startThread(setup: CheckSetup): Checker {
  const thread = startThreadCalls<ChunkRequest, CheckedChunk>(new URL('./checkThread.ts', import.meta.url), {
    workerData: setup,
    resourceLimits: THREAD_HEAP,
    stopped: (cause) =>
      cause instanceof Error ? cause : new Error(`an import's checking thread stopped (exit code ${cause})`),
  });
  return {
    // The chunk's bytes move to the thread (not copied).
    check: (request) => thread.call(request, [request.bytes.buffer as ArrayBuffer]),
    stop: () => thread.worker.terminate(),
  };
}

/** This thread as a checker: it checks its chunk while the threads check theirs. */
function localChecker(setup: CheckSetup): Checker {
  const ids = rowIds(setup.seed);
  return {
    check: async (request) => checkChunk(setup, ids, request),
    stop: async () => {},
  };
}

/** The checked chunks of an NDJSON file, in file order. */
export async function* checkedChunks(
  file: string,
  setup: CheckSetup,
  progress: { bytes: number },
  checkers = checkerCount(),
): AsyncGenerator<CheckedChunk> {
  // The threads start with the file's second chunk: a file of one chunk (most imports by hand) is
  // checked here in milliseconds, where a thread's start (its modules and row schemas) costs about
  // a CPU-second.
  const all = [localChecker(setup)];
  const answers: Promise<CheckedChunk>[] = [];
  let firstLine = 1;
  let id = 0;
  try {
    for await (const bytes of wholeLines(file, progress)) {
      if (id === 1)
        all.unshift(...Array.from({ length: Math.max(0, checkers - 1) }, () => startThread(setup)));
      const request = { id, bytes, firstLine };
      // Counted before the bytes move to a thread; a chunk ends with a line break (but the last).
      firstLine += lineSpans(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).length / 2;
      answers.push(all[id % all.length].check(request));
      id++;
      while (answers.length >= all.length * AHEAD_PER_CHECKER) yield await answers.shift()!;
    }
    while (answers.length > 0) yield await answers.shift()!;
  } finally {
    await Promise.all(all.map((checker) => checker.stop()));
  }
}

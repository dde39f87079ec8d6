// Preloaded into the bench's worker (`node --import`) when BENCH_MEMORY=1: every second, where the
// worker's memory is (RSS, V8's heap by space, memory outside it), to size its heap limits.
import v8 from 'node:v8';

const megabytes = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

setInterval(() => {
  const usage = process.memoryUsage();
  const spaces = v8
    .getHeapSpaceStatistics()
    .filter((space) => space.space_size > 2 ** 20)
    .map((space) => `${space.space_name.replace(/_space$/, '')} ${megabytes(space.space_size)}`);
  process.stderr.write(
    `worker memory (MB): rss ${megabytes(usage.rss)}, heap ${megabytes(usage.heapUsed)} used of ` +
      `${megabytes(usage.heapTotal)} (${spaces.join(', ')}), external ${megabytes(usage.external)}\n`,
  );
}, 1000).unref();

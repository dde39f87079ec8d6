// Sends in flight per workspace and channel, per process: a claimed message is rendered only when
// one of its channel's slots is free, just before its send. A batch hands its fifty claimed messages
// to the channel at once, and eight batches overlap: rendered and handed to the pooled transport
// together, four hundred messages waited in its queue behind five connections, and surviving that
// wait made the garbage collector copy and promote them (a sixth of a broadcast worker's CPU).
// Per workspace, so a workspace whose provider hangs holds only its own slots.
type Slots = { used: number; waiting: (() => void)[] };

const slotsByKey = new Map<string, Slots>();

/** Waits for a slot of `key`; the returned function frees it (call it exactly once). */
export async function takeSendSlot(key: string, limit: number): Promise<() => void> {
  let slots = slotsByKey.get(key);
  if (!slots) {
    slots = { used: 0, waiting: [] };
    slotsByKey.set(key, slots);
  }
  if (slots.used < limit) slots.used++;
  else await new Promise<void>((resolve) => slots.waiting.push(resolve));
  return () => release(key, slots);
}

function release(key: string, slots: Slots): void {
  const next = slots.waiting.shift();
  if (next) {
    next(); // the slot passes to the next waiter as it is
    return;
  }
  slots.used--;
  if (slots.used === 0) slotsByKey.delete(key);
}

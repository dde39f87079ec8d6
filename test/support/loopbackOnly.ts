// Tests talk to servers on this machine only: a client socket that connects anywhere but loopback
// (a webhook, a provider's API or a DNS name that reached the Internet) is destroyed before a byte
// is written, and its request fails with an error naming the address. This replaces nock's
// disableNetConnect, which intercepted every request of the test process, even to loopback: a
// fetch to a local server cost 3.2 times the CPU (1,968 against 613 µs) and took 25 times as long.
// The check reads the address the socket connected to, after any lookup, so a name our own resolver
// maps (the SSRF tests' fake DNS) is judged by where it leads. Unix sockets have no address: allowed.
import diagnostics from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

const LOOPBACK_ADDRESS = /^(127\.|::1$|::ffff:127\.)/;

export function allowLoopbackOnly(): void {
  diagnostics.subscribe('net.client.socket', (message) => {
    const { socket } = message as { socket: Socket };
    socket.once('connect', () => {
      const address = socket.remoteAddress;
      if (address && !LOOPBACK_ADDRESS.test(address)) {
        socket.destroy(new Error(`a test tried to connect to ${address}: tests reach local servers only`));
      }
    });
  });
}

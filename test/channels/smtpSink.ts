// A local SMTP server for tests: accepts everything, or rejects chosen recipients at RCPT TO with
// a given reply, and keeps each message it accepted (raw) for mailparser and mailauth.
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

export type SmtpSink = {
  port: number;
  messages: Buffer[];
  /** Recipients → the reply code that refuses them at RCPT TO. */
  reject: Map<string, number>;
  close: () => Promise<void>;
};

export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: Buffer[] = [];
  const reject = new Map<string, number>();
  let queued = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    closeTimeout: 1000,
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      const code = reject.get(address.address);
      if (!code) return callback();
      const text = code >= 500 ? '5.1.1 user unknown' : '4.2.1 try again later';
      callback(Object.assign(new Error(text), { responseCode: code }));
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        messages.push(Buffer.concat(chunks));
        callback(null, `queued as sink-${++queued}`);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    messages,
    reject,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Exact header values by lower-case name, unfolded (mailparser folds every List-* under `list`). */
export function headerValues(lines: readonly { key: string; line: string }[]): Record<string, string> {
  return Object.fromEntries(
    lines.map((header) => [
      header.key,
      header.line
        .slice(header.line.indexOf(':') + 1)
        .replace(/\r?\n\s+/g, ' ')
        .trim(),
    ]),
  );
}

/**
 * An SMTP server that greets and then never answers: a send to it hangs (claimed, in the SMTP
 * thread) until `close` cuts its connections.
 */
export async function startSilentSmtpServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets: Socket[] = [];
  const silent = createServer((socket) => {
    sockets.push(socket);
    socket.write('220 silent.test ESMTP\r\n');
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  return {
    port: (silent.address() as AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    },
  };
}

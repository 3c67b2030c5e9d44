import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A message the mailbox took, as its reader sees it. */
export interface ReceivedMail {
  /** the SMTP envelope's recipients */
  to: string[];
  from: string | null;
  subject: string;
  text: string;
  messageId: string | null;
  headers: Map<string, unknown>;
}

/**
 * The outside world's mail server for a suite: a real SMTP server (smtp-server) on loopback, no TLS
 * and no authentication, that keeps every message it accepts, parsed (mailparser). What Kessai sends
 * through SMTP_URL=`mailbox.url` arrives here as any mail server would receive it.
 */
export class Mailbox {
  readonly messages: ReceivedMail[] = [];
  /** messages refused so far (each with a temporary 451, as a busy server answers) */
  refused = 0;
  #server: SMTPServer | null = null;
  #url = '';
  #toRefuse = 0;

  /** Refuses the next `count` messages with 451 (a temporary failure): the sender must try again. */
  refuseNext(count: number): void {
    this.#toRefuse = count;
  }

  get url(): string {
    return this.#url;
  }

  async start(): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, session, callback) => {
        if (this.#toRefuse > 0) {
          this.#toRefuse--;
          this.refused++;
          stream.resume();
          stream.on('end', () =>
            callback(Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 })),
          );
          return;
        }
        simpleParser(stream)
          .then((parsed) => {
            this.messages.push({
              to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
              from: parsed.from?.text ?? null,
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              messageId: parsed.messageId ?? null,
              headers: parsed.headers,
            });
            callback();
          })
          .catch((error: Error) => callback(error));
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.#server = server;
    this.#url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  }

  /** The messages to `address`. */
  to(address: string): ReceivedMail[] {
    return this.messages.filter((message) => message.to.includes(address));
  }

  async close(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomInt } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { LOGGER, type Logger } from '@kessai/observability';

/** Wrong codes a token takes before its code is spent (a new token is then needed). */
export const TOKEN_CONFIRMATION_ATTEMPTS = 5;

/** A fresh six-digit confirmation code (uniform, from the CSPRNG). */
export function newConfirmationCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/**
 * What the database keeps of a code: SHA-256 over the token id and the code. A fast hash is enough:
 * the code lives until confirmed and guessing is bounded by TOKEN_CONFIRMATION_ATTEMPTS per token.
 */
export function confirmationCodeHash(tokenId: string, code: string): string {
  return `sha256$${createHash('sha256').update(`${tokenId}:${code.trim()}`).digest('hex')}`;
}

/**
 * Hands a token's confirmation code to its customer (the token's email). There is no mail sender
 * yet: with MAIL_DROP_DIR set, each message is written there as a JSON file (mode 0600), as
 * password resets are; without it the code reaches nobody and the token cannot be confirmed. The
 * code goes only here: never into a response, an event or a log line.
 */
@Injectable()
export class TokenConfirmationDelivery {
  readonly #directory: string | undefined;
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.#directory = config.MAIL_DROP_DIR;
  }

  async deliver(message: { tokenId: string; to: string; code: string }): Promise<void> {
    if (!this.#directory) return;
    try {
      await mkdir(this.#directory, { recursive: true, mode: 0o700 });
      const mail = {
        kind: 'token_confirmation',
        to: message.to,
        subject: 'Your payment confirmation code',
        transaction_token_id: message.tokenId,
        code: message.code,
        instructions: 'Give this code to the shop: it confirms your payment method.',
      };
      await writeFile(
        join(this.#directory, `token-confirmation-${message.tokenId}.json`),
        `${JSON.stringify(mail, null, 2)}\n`,
        { mode: 0o600, flag: 'wx' },
      );
    } catch (error) {
      // the token is created either way; it waits unconfirmed (no code in the log)
      this.logger.error({ tokenId: message.tokenId, err: error }, 'confirmation code not delivered');
    }
  }
}

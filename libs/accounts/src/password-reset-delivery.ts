import { writeMailDrop } from './mail-drop';

/** What a user receives to reset a password. The token is the only copy outside its hash. */
export interface PasswordResetMessage {
  resetId: string;
  to: string;
  name: string;
  token: string;
  expiresOn: Date;
}

/**
 * Hands a reset token to the user. There is no mail sender yet: a real one implements this (the
 * request is recorded as a `password_reset_requested` outbox event either way). The raw token goes
 * only here: never into the database, an event, a response or a log line.
 */
export abstract class PasswordResetDelivery {
  abstract deliver(message: PasswordResetMessage): Promise<void>;
}

/**
 * Writes each message as a JSON file (mode 0600) into a directory, the way development mail
 * catchers do: the operator of a self-hosted instance, or a test, reads the token there.
 */
export class MailDropDelivery extends PasswordResetDelivery {
  constructor(private readonly directory: string) {
    super();
  }

  async deliver(message: PasswordResetMessage): Promise<void> {
    await writeMailDrop(this.directory, `password-reset-${message.resetId}`, {
      kind: 'password_reset',
      to: message.to,
      subject: 'Reset your Kessai password',
      reset_id: message.resetId,
      token: message.token,
      expires_on: message.expiresOn.toISOString(),
      instructions: `Hello ${message.name}: POST /password_resets/confirm with {"token": "<token>", "password": "<new password>"} before expires_on.`,
    });
  }
}

/** Without MAIL_DROP_DIR: the reset is recorded (token hash, outbox event) but reaches nobody. */
export class UndeliveredPasswordResets extends PasswordResetDelivery {
  deliver(): Promise<void> {
    return Promise.resolve();
  }
}

export function passwordResetDeliveryFor(config: { MAIL_DROP_DIR?: string }): PasswordResetDelivery {
  return config.MAIL_DROP_DIR ? new MailDropDelivery(config.MAIL_DROP_DIR) : new UndeliveredPasswordResets();
}

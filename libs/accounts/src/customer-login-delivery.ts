import { writeMailDrop } from './mail-drop';

/** What a store's customer receives to log in. The code is the only copy outside its hash. */
export interface CustomerLoginMessage {
  codeId: string;
  to: string;
  storeName: string;
  code: string;
  expiresOn: Date;
}

/**
 * Hands a login code to a store's customer. As for password resets there is no mail sender yet:
 * with MAIL_DROP_DIR set each message is written there as a JSON file (mode 0600); without it the
 * code reaches nobody. The code goes only here: never into a response, an event or a log line.
 */
export abstract class CustomerLoginDelivery {
  abstract deliver(message: CustomerLoginMessage): Promise<void>;
}

export class MailDropCustomerLogins extends CustomerLoginDelivery {
  constructor(private readonly directory: string) {
    super();
  }

  async deliver(message: CustomerLoginMessage): Promise<void> {
    await writeMailDrop(this.directory, `customer-login-${message.codeId}`, {
      kind: 'customer_login',
      to: message.to,
      subject: `Your ${message.storeName} login code`,
      code_id: message.codeId,
      code: message.code,
      expires_on: message.expiresOn.toISOString(),
      instructions: `Enter this code on ${message.storeName}'s page before expires_on to manage your subscription.`,
    });
  }
}

export class UndeliveredCustomerLogins extends CustomerLoginDelivery {
  deliver(): Promise<void> {
    return Promise.resolve();
  }
}

export function customerLoginDeliveryFor(config: { MAIL_DROP_DIR?: string }): CustomerLoginDelivery {
  return config.MAIL_DROP_DIR
    ? new MailDropCustomerLogins(config.MAIL_DROP_DIR)
    : new UndeliveredCustomerLogins();
}

import { Inject, Injectable } from '@nestjs/common';
import type { PlainWebhookSecrets, StoredWebhookSecrets } from '@kessai/db';
import { LOGGER, type Logger } from '@kessai/observability';
import { WebhookSecretsCipher, WebhookSecretsIntegrityError } from '@kessai/vault';

/**
 * Opens the secrets a try signs with (decision 0086): sealed with the vault's keys, or an old row's
 * plaintext until `webhooks:seal` reaches it. A webhook whose sealed secrets fail authentication
 * (altered, copied from another row) is not tried at all — null, its deliveries left pending and
 * the error logged — rather than signed with secrets nobody can vouch for; the batch's other
 * webhooks go on.
 */
@Injectable()
export class DeliverySecrets {
  constructor(
    private readonly cipher: WebhookSecretsCipher,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  readonly read = (stored: StoredWebhookSecrets, webhookId: string): PlainWebhookSecrets | null => {
    try {
      return this.cipher.read(stored, webhookId);
    } catch (error) {
      if (!(error instanceof WebhookSecretsIntegrityError)) throw error;
      this.logger.error({ webhookId }, 'webhook secrets failed authentication; its deliveries are not tried');
      return null;
    }
  };
}

import { Queue } from 'bullmq';
import type { AppConfig, ProcessConfig } from '@kessai/config';
import { QUEUES } from '@kessai/contracts';
import {
  storedSecretsOf,
  type BankAccountsRepository,
  type CardVaultRepository,
  type ProcessorAccountsRepository,
  type WebhooksRepository,
} from '@kessai/db';
import { BullConnections } from '@kessai/runtime';
import {
  BankAccountCipher,
  CardVault,
  ProcessorCredentialsCipher,
  WebhookSecretsCipher,
} from '@kessai/vault';
import { AdminError } from './admin.service';

/**
 * The operator's maintenance commands (docs/operations.md): the card vault moved to its active key
 * after a rotation, and the dead jobs of a queue listed and retried.
 */

/**
 * vault:rotate: every card_vault entry encrypted with another key than VAULT_KEYS' first is
 * decrypted and encrypted again with it, a page at a time, each entry only while it is as it was
 * read (safe beside running services, and run again after a crash); then the bank accounts'
 * numbers, the processor accounts' credentials and the webhooks' secrets, which the same keys
 * encrypt, the same way (a webhook not sealed yet is webhooks:seal's). Its
 * counts by key before and after tell when an old key may leave VAULT_KEYS: once it encrypts
 * nothing of any of them.
 */
export async function rotateVault(
  repositories: {
    cardVault: CardVaultRepository;
    bankAccounts: BankAccountsRepository;
    processorAccounts: ProcessorAccountsRepository;
    webhooks: WebhooksRepository;
  },
  config: Pick<ProcessConfig<'admin'>, 'VAULT_KEYS' | 'VAULT_FINGERPRINT_SECRET'>,
  batch: number,
) {
  const repository = repositories.cardVault;
  const vault = new CardVault(config.VAULT_KEYS, config.VAULT_FINGERPRINT_SECRET);
  const before = await repository.countByKey();
  let rotated = 0;
  let changedMeanwhile = 0;
  for (;;) {
    const page = await repository.findToRotate(vault.activeKeyId, batch);
    if (page.length === 0) break;
    for (const entry of page) {
      // an entry under a key VAULT_KEYS no longer has throws here: add the key back, then rotate
      const next = vault.reencrypt(entry, { transactionTokenId: entry.transactionTokenId });
      if (await repository.replace(entry, next)) rotated++;
      else changedMeanwhile++;
    }
  }
  return {
    active_key_id: vault.activeKeyId,
    rotated,
    changed_meanwhile: changedMeanwhile,
    entries_by_key_before: before,
    entries_by_key_after: await repository.countByKey(),
    bank_accounts: await rotateBankAccountNumbers(repositories.bankAccounts, config, batch),
    processor_accounts: await rotateProcessorCredentials(repositories.processorAccounts, config, batch),
    webhooks: await rotateWebhookSecrets(repositories.webhooks, config, batch),
  };
}

/**
 * vault:rotate's fourth part: the webhooks' sealed secrets (decision 0086). A webhook whose secrets
 * were written meanwhile (a rotation, a new auth_token) is left as it is: they are under the active
 * key already.
 */
async function rotateWebhookSecrets(
  repository: WebhooksRepository,
  config: Pick<ProcessConfig<'admin'>, 'VAULT_KEYS'>,
  batch: number,
) {
  const { rotated, changedMeanwhile, before, after } = await reencryptRows(
    repository,
    new WebhookSecretsCipher(config.VAULT_KEYS),
    batch,
  );
  return {
    rotated,
    changed_meanwhile: changedMeanwhile,
    secrets_by_key_before: before,
    secrets_by_key_after: after,
  };
}

/**
 * webhooks:seal (decision 0086): every webhook whose secrets a release before 0086 wrote in
 * plaintext has them sealed with VAULT_KEYS' first key and its plaintext columns cleared, a page of
 * `batch` at a time, each row only while it is as it was read (safe beside running services: a
 * write meanwhile sealed it already). Run again, it finds nothing to do; its counts by key (`plaintext`:
 * rows not sealed) before and after say when none is left.
 */
export async function sealWebhookSecrets(
  repository: WebhooksRepository,
  config: Pick<ProcessConfig<'admin'>, 'VAULT_KEYS'>,
  batch: number,
) {
  const cipher = new WebhookSecretsCipher(config.VAULT_KEYS);
  const before = await repository.countByKey();
  let sealed = 0;
  let changedMeanwhile = 0;
  for (;;) {
    const page = await repository.findUnsealed(batch);
    if (page.length === 0) break;
    for (const row of page) {
      const secrets = cipher.read(storedSecretsOf(row), row.id);
      if (await repository.sealPlaintext(row, cipher.seal(secrets, row.id))) sealed++;
      else changedMeanwhile++;
    }
  }
  return {
    active_key_id: cipher.activeKeyId,
    sealed,
    changed_meanwhile: changedMeanwhile,
    secrets_by_key_before: before,
    secrets_by_key_after: await repository.countByKey(),
  };
}

/**
 * vault:rotate's third part: the processor accounts' credentials (disabled accounts' too). An
 * account whose credentials were replaced meanwhile (processor-account:rotate) is left as it is:
 * its new credentials are under the active key already.
 */
async function rotateProcessorCredentials(
  repository: ProcessorAccountsRepository,
  config: Pick<ProcessConfig<'admin'>, 'VAULT_KEYS'>,
  batch: number,
) {
  const { rotated, changedMeanwhile, before, after } = await reencryptRows(
    repository,
    new ProcessorCredentialsCipher(config.VAULT_KEYS),
    batch,
  );
  return {
    rotated,
    changed_meanwhile: changedMeanwhile,
    credentials_by_key_before: before,
    credentials_by_key_after: after,
  };
}

/** vault:rotate's second part: the bank accounts' numbers (deleted accounts' too). */
async function rotateBankAccountNumbers(
  repository: BankAccountsRepository,
  config: Pick<ProcessConfig<'admin'>, 'VAULT_KEYS' | 'VAULT_FINGERPRINT_SECRET'>,
  batch: number,
) {
  const { rotated, changedMeanwhile, before, after } = await reencryptRows(
    repository,
    new BankAccountCipher(config.VAULT_KEYS, config.VAULT_FINGERPRINT_SECRET),
    batch,
  );
  return {
    rotated,
    changed_meanwhile: changedMeanwhile,
    numbers_by_key_before: before,
    numbers_by_key_after: after,
  };
}

/**
 * Seals again, under the active key, every row of `repository` sealed under another, a page at a
 * time; a row changed meanwhile (its replacement refused) is counted apart.
 */
async function reencryptRows<Row extends { id: string }, Sealed>(
  repository: {
    countByKey(): Promise<Record<string, number>>;
    findToRotate(activeKeyId: string, limit: number): Promise<Row[]>;
    replaceEncryption(row: NoInfer<Row>, sealed: Sealed): Promise<boolean>;
  },
  cipher: { activeKeyId: string; reencrypt(row: NoInfer<Row>, boundTo: string): Sealed },
  batch: number,
) {
  const before = await repository.countByKey();
  let rotated = 0;
  let changedMeanwhile = 0;
  for (;;) {
    const page = await repository.findToRotate(cipher.activeKeyId, batch);
    if (page.length === 0) break;
    for (const row of page) {
      if (await repository.replaceEncryption(row, cipher.reencrypt(row, row.id))) rotated++;
      else changedMeanwhile++;
    }
  }
  return { rotated, changedMeanwhile, before, after: await repository.countByKey() };
}

/** A queue of libs/contracts for one command, closed with its connection once `work` is done. */
async function withQueue<T>(config: AppConfig, name: string, work: (queue: Queue) => Promise<T>): Promise<T> {
  if (!QUEUES.some((queue) => queue.name === name))
    throw new AdminError(`--queue must be one of ${QUEUES.map((queue) => queue.name).join(', ')}`);
  // the command's own connection: closing it leaves the process's others (a test's) alone
  const connections = new BullConnections();
  const queue = new Queue(name, connections.options(config));
  try {
    return await work(queue);
  } finally {
    await queue.close();
    await connections.close();
  }
}

/** jobs:failed: the queue's dead jobs (BullMQ's failed set), newest first: what failed, and why. */
export function listFailedJobs(config: AppConfig, queueName: string, limit: number) {
  return withQueue(config, queueName, async (queue) => {
    const jobs = await queue.getFailed(0, limit - 1);
    return {
      queue: queueName,
      failed: await queue.getFailedCount(),
      jobs: jobs.map((job) => ({
        id: job.id ?? null,
        name: job.name,
        // jobs carry ids only (libs/contracts), never card data
        data: job.data as unknown,
        attempts_made: job.attemptsMade,
        failed_reason: job.failedReason,
        failed_on: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
      })),
    };
  });
}

/**
 * jobs:retry: a dead job (`id`), or every dead job of the queue (`all`), back to waiting with its
 * attempts counted afresh. The workers take it as any job: the rows decide whether work remains, so
 * a job whose work was done meanwhile changes nothing.
 */
export function retryFailedJobs(
  config: AppConfig,
  queueName: string,
  target: { id?: string; all?: boolean },
) {
  if (!target.id === !target.all) throw new AdminError('give either --id or --all');
  return withQueue(config, queueName, async (queue) => {
    if (target.all) {
      const count = await queue.getFailedCount();
      await queue.retryJobs({ state: 'failed', count: 1_000 });
      return { queue: queueName, retried: count };
    }
    const job = await queue.getJob(target.id as string);
    if (!job || !(await job.isFailed())) throw new AdminError(`no failed job ${target.id} in ${queueName}`);
    await job.retry('failed');
    return { queue: queueName, retried: 1, id: job.id };
  });
}

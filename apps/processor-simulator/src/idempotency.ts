import { createHash } from 'node:crypto';
import { type ServerResponse } from 'node:http';
import { sendError, sendJson } from './http-io';
import { type IdempotencyRecord, type StoredResponse } from './simulator-state';

/** A stable digest of what a request asks for, to tell a true repeat from a reused key. */
export function requestHash(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

/**
 * Answers a repeat of an executed key with the stored answer, and refuses a key reused for a
 * different request. Returns true when it answered.
 */
export function answeredAlready(record: IdempotencyRecord, hash: string, response: ServerResponse): boolean {
  if (record.requestHash !== hash) {
    sendError(response, 409, 'idempotency_conflict', 'this idempotency key was used for a different request');
    return true;
  }
  if (!record.response) return false;
  sendJson(response, record.response.status, record.response.body);
  return true;
}

/**
 * Carries the operation out and keeps its answer for the key's repeats. Callers reach this
 * without awaiting anything after `answeredAlready`, so concurrent repeats cannot both execute.
 */
export function executeOnce(record: IdempotencyRecord, carryOut: () => StoredResponse): StoredResponse {
  const answer = carryOut();
  record.executions += 1;
  record.response = answer;
  return answer;
}

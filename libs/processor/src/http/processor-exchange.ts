import { type ProcessorOperation, TransientProcessorError, unexecutedReasonOf } from '../processor-errors';
import { type ProcessorTransport } from './keep-alive-transport';

/** What came back from a processor: its status, its Retry-After header and its body as text. */
export interface ProcessorExchange {
  status: number;
  retryAfter: string | null;
  text: string;
}

export interface ProcessorExchangeRequest {
  operation: ProcessorOperation;
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

/**
 * One HTTP exchange with a processor, shared by the adapters that speak HTTP themselves
 * (HttpPaymentProcessor, KomojuPaymentProcessor). One signal bounds the whole exchange, body
 * included, so a processor that stalls mid-body also times out: a plain timer and controller,
 * cleared at the end (AbortSignal.timeout costs several times more per call). No answer is thrown
 * as TransientProcessorError, `timeout` or `network`: the operation may or may not have happened.
 */
export async function exchangeWithProcessor(
  transport: ProcessorTransport,
  request: ProcessorExchangeRequest,
): Promise<ProcessorExchange> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('the processor did not answer in time', 'TimeoutError')),
    request.timeoutMs,
  );
  try {
    const response = await transport(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: controller.signal,
    });
    const retryAfter = response.headers.get('retry-after');
    return { status: response.status, retryAfter, text: await response.text() };
  } catch (error) {
    // Deliberately not chained as `cause`: transport errors can carry the request, card number included.
    // By name, not instanceof: the DOMException may come from another realm (e.g. under jest).
    const name = typeof error === 'object' && error !== null && 'name' in error ? error.name : undefined;
    const timedOut = name === 'TimeoutError' || name === 'AbortError';
    if (timedOut) throw new TransientProcessorError(request.operation, 'timeout');
    // a refused connection or an unresolved name: provably never sent (decision 0056)
    throw new TransientProcessorError(request.operation, 'network', null, null, unexecutedReasonOf(error));
  } finally {
    clearTimeout(timer);
  }
}

/** The JSON body of a 2xx answer; one we cannot read is thrown as transient (the operation may have happened). */
export function jsonBodyOf(operation: ProcessorOperation, answer: ProcessorExchange): unknown {
  try {
    return JSON.parse(answer.text) as unknown;
  } catch {
    throw new TransientProcessorError(operation, 'malformed_response', answer.status);
  }
}

/** Retry-After in seconds as milliseconds, or null when absent or unreadable. */
export function retryAfterMs(header: string | null): number | null {
  if (header === null) return null;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : null;
}

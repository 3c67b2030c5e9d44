import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import SDK, { ResponseError, TemporaryTokenAlias } from 'univapay-node';
import { SdkAnswerChecker, type Violation } from './check';
import { loadSdkSchemas, UNMOUNTED_RESOURCES } from './schemas';

/** The folder where a test run's SDK calls are recorded (set by the e2e global setup). */
export const SDK_CONFORMANCE_DIR = 'KESSAI_SDK_CONFORMANCE_DIR';

/** One SDK call of a test file: its method, whether it answered or failed, what broke the SDK's type. */
export interface SdkCallRecord {
  file: string;
  method: string;
  outcome: 'answer' | 'error';
  violations: Violation[];
}

const INSTRUMENTED = Symbol.for('kessai.sdkConformance');
/** Set while an SDK method runs: the calls it makes itself (poll → get) are its own, not the test's. */
const inCall = new AsyncLocalStorage<true>();

type Method = (...args: unknown[]) => unknown;

/**
 * Checks every answer of every SDK method against the SDK's own declared types, whoever made the
 * client (sdkFor or `new SDK(…)`): the methods of the SDK's resource classes are wrapped once per
 * module registry, each answer (or ResponseError envelope) validated, and each call appended to the
 * run's folder under the test file that made it. Does nothing outside a run that set the folder.
 */
export function instrumentSdk(testFile: () => string | undefined): void {
  const dir = process.env[SDK_CONFORMANCE_DIR];
  const prototypes = SDK.prototype as unknown as Record<symbol, boolean>;
  if (!dir || prototypes[INSTRUMENTED]) return;
  prototypes[INSTRUMENTED] = true;
  const schemas = loadSdkSchemas();
  const checker = new SdkAnswerChecker(schemas);
  const sdk = new SDK({ endpoint: 'http://127.0.0.1:1' });
  const sample = sdk as unknown as Record<string, unknown>;
  // the resource classes not mounted on SDK, by their class names (UNMOUNTED_RESOURCES)
  const unmounted: Record<string, unknown> = { TemporaryTokenAlias: new TemporaryTokenAlias(sdk.api) };
  for (const { name } of UNMOUNTED_RESOURCES) {
    if (!unmounted[name]) throw new Error(`sdk conformance: no instance of ${name} to instrument`);
  }
  const record = (call: Omit<SdkCallRecord, 'file'>) => {
    const path = testFile();
    const file = path ? relative(process.cwd(), path) : 'unknown';
    const key = createHash('sha256').update(file).digest('hex').slice(0, 16);
    appendFileSync(join(dir, `${key}.jsonl`), `${JSON.stringify({ file, ...call })}\n`);
  };
  for (const method of Object.keys(schemas.methods)) {
    const [resource, name] = method.split('.');
    const instance = sample[resource] ?? unmounted[resource];
    if (!instance || typeof instance !== 'object') continue;
    const prototype = Object.getPrototypeOf(instance) as Record<string, Method>;
    const original = prototype[name];
    if (typeof original !== 'function') continue;
    prototype[name] = function (this: unknown, ...args: unknown[]) {
      if (inCall.getStore()) return original.apply(this, args);
      return inCall.run(true, () => {
        const result = original.apply(this, args);
        if (!(result instanceof Promise)) return result;
        return result.then(
          (answer: unknown) => {
            record({ method, outcome: 'answer', violations: checker.checkAnswer(method, answer) });
            return answer;
          },
          (error: unknown) => {
            if (error instanceof ResponseError) {
              const violations = checker.checkError(error.errorResponse);
              record({ method, outcome: 'error', violations });
            }
            throw error;
          },
        );
      });
    };
  }
}

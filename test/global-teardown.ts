import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SDK_CONFORMANCE_DIR } from '../libs/testing/src/sdk-conformance/record';
import {
  formatSdkConformanceReport,
  loadSdkExceptions,
  readSdkCalls,
  sdkConformanceReport,
} from '../libs/testing/src/sdk-conformance/report';
import { sdkVersion } from '../libs/testing/src/sdk-conformance/schemas';

/** The list of the answers' deliberate and known differences from the SDK's types. */
export const SDK_EXCEPTIONS_FILE = join(__dirname, 'sdk-conformance-exceptions.yaml');

/**
 * The end of an e2e run: the SDK conformance report over every SDK call the suites made. A
 * violation of the SDK's types that the exceptions list does not hold fails the run; the listed
 * exceptions that did not occur are named, so that the list shrinks as gaps close.
 * KESSAI_SDK_CONFORMANCE_OUT names a file to write the report to (JSON: the methods called,
 * type-clean and clean but for listed exceptions, the unlisted violations with their files, and the
 * exceptions used and not met, by their reason), to draft list entries or the SDK compatibility
 * table from.
 */
export default function globalTeardown() {
  const dir = process.env[SDK_CONFORMANCE_DIR];
  if (!dir) return;
  try {
    const exceptions = loadSdkExceptions(SDK_EXCEPTIONS_FILE);
    const report = sdkConformanceReport(readSdkCalls(dir), exceptions);
    console.log(`\n${formatSdkConformanceReport(report, exceptions, sdkVersion())}`);
    const out = process.env.KESSAI_SDK_CONFORMANCE_OUT;
    if (out) {
      const reasons = (indices: number[]) => indices.map((i) => exceptions[i].reason);
      const written = { ...report, used: reasons(report.used), unused: reasons(report.unused) };
      writeFileSync(out, JSON.stringify(written, null, 2));
    }
    if (report.unlisted.length > 0) {
      throw new Error(
        `${report.unlisted.length} SDK answers break univapay-node's types and are not in ` +
          `test/sdk-conformance-exceptions.yaml: fix them, or list each with its reason`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    delete process.env[SDK_CONFORMANCE_DIR];
  }
}

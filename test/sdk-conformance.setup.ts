// Every SDK method any suite calls has its answers checked against the SDK's declared types
// (docs/architecture.md, "The SDK's types as the test"): the SDK's classes are instrumented once per
// test file, before the file's own code makes a client.
import { instrumentSdk } from '../libs/testing/src/sdk-conformance/record';

instrumentSdk(() => expect.getState().testPath);

// Copies what the build's JavaScript reads from disk beside it: the hosted checkout's browser code and
// style (apps/gateway/src/hosted-checkout/assets), which tsc does not emit.
const { cpSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const assets = 'apps/gateway/src/hosted-checkout/assets';
cpSync(join(root, assets), join(root, 'dist', assets), { recursive: true });

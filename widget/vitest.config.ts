import { sharedConfig } from '../vitest.shared.js';

export default sharedConfig(new URL('.', import.meta.url));

/** Writes the checkout proxy's OpenAPI document to widget/openapi.json (a test fails when it is stale). */
import { writeFileSync } from 'node:fs';
import { checkoutOpenApiDocument } from '../src/proxy/openapi.js';

writeFileSync(new URL('../openapi.json', import.meta.url), `${JSON.stringify(checkoutOpenApiDocument(), null, 2)}\n`);
